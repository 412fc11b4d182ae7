#include "core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace sonde {
namespace {

// The name of a character that a reader cannot see, or nullptr for one that shows.
const char* invisible_name(char32_t c) {
  switch (c) {
    case 0x00:
      return "NULL";
    case 0x09:
      return "CHARACTER TABULATION";
    case 0x0A:
      return "LINE FEED";
    case 0x0B:
      return "LINE TABULATION";
    case 0x0C:
      return "FORM FEED";
    case 0x0D:
      return "CARRIAGE RETURN";
    case 0x1B:
      return "ESCAPE";
    case 0x7F:
      return "DELETE";
    case 0x85:
      return "NEXT LINE";
    case 0xA0:
      return "NO-BREAK SPACE";
    case 0xAD:
      return "SOFT HYPHEN";
    case 0x1680:
      return "OGHAM SPACE MARK";
    case 0x180E:
      return "MONGOLIAN VOWEL SEPARATOR";
    case 0x2000:
      return "EN QUAD";
    case 0x2001:
      return "EM QUAD";
    case 0x2002:
      return "EN SPACE";
    case 0x2003:
      return "EM SPACE";
    case 0x2004:
      return "THREE-PER-EM SPACE";
    case 0x2005:
      return "FOUR-PER-EM SPACE";
    case 0x2006:
      return "SIX-PER-EM SPACE";
    case 0x2007:
      return "FIGURE SPACE";
    case 0x2008:
      return "PUNCTUATION SPACE";
    case 0x2009:
      return "THIN SPACE";
    case 0x200A:
      return "HAIR SPACE";
    case 0x200B:
      return "ZERO WIDTH SPACE";
    case 0x200C:
      return "ZERO WIDTH NON-JOINER";
    case 0x200D:
      return "ZERO WIDTH JOINER";
    case 0x200E:
      return "LEFT-TO-RIGHT MARK";
    case 0x200F:
      return "RIGHT-TO-LEFT MARK";
    case 0x2028:
      return "LINE SEPARATOR";
    case 0x2029:
      return "PARAGRAPH SEPARATOR";
    case 0x202A:
      return "LEFT-TO-RIGHT EMBEDDING";
    case 0x202B:
      return "RIGHT-TO-LEFT EMBEDDING";
    case 0x202C:
      return "POP DIRECTIONAL FORMATTING";
    case 0x202D:
      return "LEFT-TO-RIGHT OVERRIDE";
    case 0x202E:
      return "RIGHT-TO-LEFT OVERRIDE";
    case 0x202F:
      return "NARROW NO-BREAK SPACE";
    case 0x205F:
      return "MEDIUM MATHEMATICAL SPACE";
    case 0x2060:
      return "WORD JOINER";
    case 0x2061:
      return "FUNCTION APPLICATION";
    case 0x2062:
      return "INVISIBLE TIMES";
    case 0x2063:
      return "INVISIBLE SEPARATOR";
    case 0x2064:
      return "INVISIBLE PLUS";
    case 0x2066:
      return "LEFT-TO-RIGHT ISOLATE";
    case 0x2067:
      return "RIGHT-TO-LEFT ISOLATE";
    case 0x2068:
      return "FIRST STRONG ISOLATE";
    case 0x2069:
      return "POP DIRECTIONAL ISOLATE";
    case 0x3000:
      return "IDEOGRAPHIC SPACE";
    case 0xFEFF:
      return "ZERO WIDTH NO-BREAK SPACE (a byte-order mark)";
    default:
      break;
  }
  if (c < 0x20 || (c >= 0x80 && c < 0xA0)) return "control character";
  return nullptr;
}

// The code point at `at` and its length in bytes, or length 0 where the bytes are not UTF-8.
std::pair<char32_t, std::size_t> decode_utf8(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return {lead, 1};
  std::size_t length = 0;
  char32_t c = 0;
  char32_t least = 0;  // the smallest code point this length may encode (no overlong forms)
  if ((lead & 0xE0) == 0xC0) {
    length = 2, c = lead & 0x1F, least = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, c = lead & 0x0F, least = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, c = lead & 0x07, least = 0x10000;
  } else {
    return {0, 0};
  }
  if (at + length > text.size()) return {0, 0};
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(at + i) & 0xC0) != 0x80) return {0, 0};
    c = (c << 6) | (byte(at + i) & 0x3F);
  }
  if (c < least || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return {0, 0};
  return {c, length};
}

// `text` with what cannot be seen written out; the names of what was, in `notes`.
std::string escaped(std::string_view text, std::vector<std::string>& notes) {
  const auto note = [&](std::string what) {
    if (std::find(notes.begin(), notes.end(), what) == notes.end())
      notes.push_back(std::move(what));
  };
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const auto [c, length] = decode_utf8(text, at);
    if (length == 0) {
      const auto byte = static_cast<unsigned char>(text[at]);
      out += fmt::format("\\x{:02x}", byte);
      note(fmt::format("byte 0x{:02X}, which is not UTF-8", byte));
      ++at;
      continue;
    }
    if (const char* name = invisible_name(c)) {
      out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(c));
      note(fmt::format("U+{:04X} {}", static_cast<std::uint32_t>(c), name));
    } else {
      out.append(text.substr(at, length));
    }
    at += length;
  }
  return out;
}

std::string notes_text(const std::vector<std::string>& notes) {
  return notes.empty() ? "" : fmt::format(" (holds {})", fmt::join(notes, ", "));
}

}  // namespace

Error::Error(ExitCode code, std::string where, const std::string& what)
    : std::runtime_error(visible(where.empty() ? what : where + ": " + what)),
      code_(code),
      where_(std::move(where)),
      problem_(what) {}

Error usage_error(std::string option, const std::string& what) {
  return Error(ExitCode::usage, std::move(option), what);
}

Error input_error(std::string where, const std::string& what) {
  return Error(ExitCode::bad_input, std::move(where), what);
}

Error io_error(std::string where, const std::string& what) {
  return Error(ExitCode::failure, std::move(where), what);
}

std::string shown(std::string_view text) {
  std::vector<std::string> notes;
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) of "'" + std::string.
  std::string out(1, '\'');
  out += escaped(text, notes);
  out += '\'';
  out += notes_text(notes);
  return out;
}

std::string visible(std::string_view text) {
  std::vector<std::string> notes;
  std::string out = escaped(text, notes);
  return out + notes_text(notes);
}

std::size_t invalid_utf8_at(std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = decode_utf8(text, at).second;
    if (length == 0) return at;
    at += length;
  }
  return std::string_view::npos;
}

}  // namespace sonde

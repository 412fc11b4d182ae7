# LogGOPSim parameters of test-cluster, exported by sonde from export/tests/fixtures/cluster.yaml.
# Options: src/LogGOPSim/loggopsim_cmdline.ggo of github.com/spcl/LogGOPSim; a message of s bytes
#   costs o + L + (s - 1) G + o there.
# time unit: ps (picoseconds), since G is below 10 ns per byte and LogGOPSim takes integers. The
#   schedule must be in ps too: schedgen --timemult 1000000.
# -L 1500000: Hockney t0 of the first point-to-point segment (0 B to 8192 B), 1.5e-06 s, fitted, 95%
#   interval 1.4e-06 .. 1.6e-06 s; the one-way start-up of a message as measured end to end, both
#   overheads included.
# -o 0: the CPU overhead per message was not measured apart from the latency (sonde's ping-pong
#   times the whole message); it is held in L, and given as 0 so that LogGOPSim does not add its
#   default 1500 on top of the measured t0.
# -G 100: 1 / r_inf of the last segment (16384 B to 4194304 B), r_inf = 10000000000 B/s, fitted, 95%
#   interval 9500000000 .. 10500000000 B/s; rounded to a whole ps per byte (unrounded: 100).
# -O 0: the CPU overhead per byte was not measured apart from the bandwidth; it is held in G
#   (LogGOPSim charges max(O, G) per byte at the receiver).
# -S 8192: the protocol breakpoint, the largest message of the segment before the last (8192 B); the
#   last segment starts at 16384 B, so the switch lies between the two sizes measured.
# Not expressed:
# - the other segments: LogGOPSim has one L, one G and one breakpoint S; the profile has 2 segments:
#   0 B to 8192 B: t0 1.5e-06 s, r_inf 2000000000 B/s; 16384 B to 4194304 B: t0 6e-06 s, r_inf
#   10000000000 B/s. Above S LogGOPSim simulates the rendezvous handshake itself.
# - -g: the gap per message (the inverse of the message rate) was not measured (the profile has no
#   point_to_point.streaming): left out, so LogGOPSim uses its default 1000 in the time unit above;
#   give -g yourself.
# - intervals of L and G (LogGOPSim takes single values), the collectives (LogGOPSim simulates them
#   from their schedules) and congestion (network-type LogGP).
# Run with the schedule: sh <this file> -f <schedule.bin>
LogGOPSim -L 1500000 -o 0 -G 100 -O 0 -S 8192 "$@"

# LogGOPSim parameters of epyc-vm, exported by sonde from machines/epyc-vm.yaml.
# Options: src/LogGOPSim/loggopsim_cmdline.ggo of github.com/spcl/LogGOPSim; a message of s bytes
#   costs o + L + (s - 1) G + o there.
# time unit: ps (picoseconds), since G is below 10 ns per byte and LogGOPSim takes integers. The
#   schedule must be in ps too: schedgen --timemult 1000000.
# -L 443492: Hockney t0 of the first point-to-point segment (0 B to 256 B), 4.4349201668963645e-07
#   s, fitted, 95% interval 4.24005127494492e-07 .. 4.6703533228220706e-07 s; the one-way start-up
#   of a message as measured end to end, both overheads included.
# -o 0: the CPU overhead per message was not measured apart from the latency (sonde's ping-pong
#   times the whole message); it is held in L, and given as 0 so that LogGOPSim does not add its
#   default 1500 on top of the measured t0.
# -G 97: 1 / r_inf of the last segment (4096 B to 16777216 B), r_inf = 10302317693.901299 B/s,
#   fitted, 95% interval 10064524003.666252 .. 10491487139.464941 B/s; rounded to a whole ps per
#   byte (unrounded: 97.06553706764194).
# -O 0: the CPU overhead per byte was not measured apart from the bandwidth; it is held in G
#   (LogGOPSim charges max(O, G) per byte at the receiver).
# -S 3444: the protocol breakpoint, the largest message of the segment before the last (3444 B); the
#   last segment starts at 4096 B, so the switch lies between the two sizes measured.
# -g 118832: the gap per message, the time per message of a unidirectional stream of 1 B messages
#   sent back to back (point_to_point.streaming), 1.1883174094945298e-07 s, measured, range
#   1.1845368852458917e-07 .. 1.3163205259562862e-07 s; the inverse of the message rate.
# Not expressed:
# - the other segments: LogGOPSim has one L, one G and one breakpoint S; the profile has 4 segments:
#   0 B to 256 B: t0 4.4349201668963645e-07 s, r_inf 2883691696.438692 B/s; 304 B to 2048 B: t0
#   7.462467581263502e-07 s, r_inf 11633626647.711569 B/s; 2435 B to 3444 B: t0
#   1.208877599602227e-06 s, r_inf 22192744706.260136 B/s; 4096 B to 16777216 B: t0
#   4.029601479965772e-06 s, r_inf 10302317693.901299 B/s. Above S LogGOPSim simulates the
#   rendezvous handshake itself.
# - intervals of L and G (LogGOPSim takes single values), the collectives (LogGOPSim simulates them
#   from their schedules) and congestion (network-type LogGP).
# Run with the schedule: sh <this file> -f <schedule.bin>
LogGOPSim -L 443492 -o 0 -g 118832 -G 97 -O 0 -S 3444 "$@"

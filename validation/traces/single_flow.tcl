# ns-2 side of the trace twins (validation/traces/README.md): one TCP flow
# s -> r1 -> r2 -> d, 100 Mbps 10 ms access links, a 10 Mbps 40 ms bottleneck
# with a DropTail queue of `limit` (ns-2's meaning), packetSize_ 1000,
# window_ 20 and every other Agent/TCP default of ns-2.35; the r1 -> r2
# queue's events are written to `out` in ns-2's trace format.
# Usage: ns single_flow.tcl AGENT LIMIT DURATION OUT   (AGENT: TCP, TCP/Reno, TCP/Newreno)
set agent [lindex $argv 0]
set lim [lindex $argv 1]
set dur [lindex $argv 2]
set out [lindex $argv 3]
set ns [new Simulator]
set r1 [$ns node]; set r2 [$ns node]; set s [$ns node]; set d [$ns node]
$ns duplex-link $r1 $r2 10Mb 40ms DropTail
$ns duplex-link $s $r1 100Mb 10ms DropTail
$ns duplex-link $d $r2 100Mb 10ms DropTail
$ns queue-limit $r1 $r2 $lim
set tf [open $out w]
$ns trace-queue $r1 $r2 $tf
set t [new Agent/$agent]
$t set packetSize_ 1000
$t set window_ 20
set k [new Agent/TCPSink]
$ns attach-agent $s $t
$ns attach-agent $d $k
$ns connect $t $k
set ftp [new Application/FTP]
$ftp attach-agent $t
$ns at 0.0 "$ftp start"
proc finish {} { global tf; close $tf; exit 0 }
$ns at $dur "finish"
$ns run

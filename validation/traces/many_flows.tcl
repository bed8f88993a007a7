# ns-2 side of the many-flow trace twin (validation/traces/README.md): 120
# TCP flows s(i) -> r1 -> r2 -> d(i), all started at 0 (the bisoy setting of
# validation/twins.toml `bisoy-droptail-tahoe-120` with start_max = 0):
# 100 Mbps 2 ms access links (DropTail 1000), a 10 Mbps 20 ms bottleneck with
# a DropTail queue of `limit` in both directions, packetSize_ 472 (512-byte
# packets), window_ 8000, every other Agent/TCP default of ns-2.35; flow i
# has fid_ i; the r1 -> r2 queue's events are written to `out`.
# Usage: ns many_flows.tcl AGENT LIMIT DURATION OUT
set agent [lindex $argv 0]
set lim [lindex $argv 1]
set dur [lindex $argv 2]
set out [lindex $argv 3]
set N 120
set ns [new Simulator]
for {set i 0} {$i < $N} {incr i} { set s($i) [$ns node] }
set r1 [$ns node]; set r2 [$ns node]
for {set i 0} {$i < $N} {incr i} { set d($i) [$ns node] }
$ns duplex-link $r1 $r2 10Mb 20ms DropTail
$ns queue-limit $r1 $r2 $lim
$ns queue-limit $r2 $r1 $lim
set tf [open $out w]
$ns trace-queue $r1 $r2 $tf
for {set i 0} {$i < $N} {incr i} {
    $ns duplex-link $s($i) $r1 100Mb 2ms DropTail
    $ns duplex-link $d($i) $r2 100Mb 2ms DropTail
    foreach {a b} [list $s($i) $r1 $r1 $s($i) $d($i) $r2 $r2 $d($i)] {
        $ns queue-limit $a $b 1000
    }
    set t [new Agent/$agent]
    $t set packetSize_ 472
    $t set window_ 8000
    $t set fid_ $i
    set k [new Agent/TCPSink]
    $ns attach-agent $s($i) $t
    $ns attach-agent $d($i) $k
    $ns connect $t $k
    set ftp [new Application/FTP]
    $ftp attach-agent $t
    $ns at 0.0 "$ftp start"
}
proc finish {} { global tf; close $tf; exit 0 }
$ns at $dur "finish"
$ns run

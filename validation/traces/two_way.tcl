# ns-2 side of the two-way trace twin (validation/traces/README.md): one TCP
# flow s -> d and one d -> s over the network of single_flow.tcl, DropTail of
# `limit` on both directions of the bottleneck, 2000-byte payloads, window_
# 20, the reverse flow starting 0.5 ms later; the r1 -> r2 queue (data of the
# forward flow, ACKs of the reverse one) is written to `out`.
# Usage: ns two_way.tcl AGENT LIMIT DURATION OUT
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
$ns queue-limit $r2 $r1 $lim
set tf [open $out w]
$ns trace-queue $r1 $r2 $tf
foreach {from to fid start} [list $s $d 0 0.0 $d $s 1 0.0005] {
    set t [new Agent/$agent]
    $t set packetSize_ 2000
    $t set window_ 20
    $t set fid_ $fid
    set k [new Agent/TCPSink]
    $ns attach-agent $from $t
    $ns attach-agent $to $k
    $ns connect $t $k
    set ftp [new Application/FTP]
    $ftp attach-agent $t
    $ns at $start "$ftp start"
}
proc finish {} { global tf; close $tf; exit 0 }
$ns at $dur "finish"
$ns run

# ns-2 side of the differential validation suite (validation/README.md).
#
# One parameterized dumbbell: N sources s(i) -> r1 -> r2 -> N sinks d(i),
# duplex links; access links at access_rate/access_delay (a comma-separated
# access_delay list is cycled over the pairs), the bottleneck r1 <-> r2 at
# bottleneck_rate/bottleneck_delay with the chosen queue (limit `buffer`) in
# both directions; FTP over the chosen Agent/TCP variant; with two_way = 1 a
# reverse flow d(i) -> s(i) per pair.
#
# Usage: ns dumbbell.tcl --key=value ...   (the keys of validation/twins.toml
# params, plus seed). Prints one JSON object on its last stdout line.
#
# Metrics over [warmup, duration] on r1->r2 (and r2->r1 as rev_*):
#   utilization    bdepartures_ of the queue monitor (bytes whose transmission
#                  started: ns-2 dequeues a packet when its transmission starts)
#                  * 8 / (rate * window)
#   drop_rate      pdrops_ / parrivals_ of the queue monitor (random loss of
#                  `loss` is applied after the link, not counted here)
#   avg_queue_pkts the monitor's packet integrator (packets waiting; the one on
#                  the wire has been dequeued) / window
#   goodput_bps    per flow: (ack_ at the end - ack_ at warmup) * packetSize_ * 8
#                  / window, from the sender's highest cumulative ACK (in-order
#                  payload delivered, seen half an RTT later than at the sink)
#   timeouts       nrexmit_ (tcp.h: "retransmit timeouts when there was data
#                  outstanding"); retransmissions: nrexmitpack_ (retransmitted
#                  packets)
#
# ns-2.35 defaults this script relies on (read from `ns` itself, see
# validation/README.md): Agent/TCP window_ 20 (overridden by `window`),
# windowInit_ 2, syn_ 1, minrto_ 0.2, rtxcur_init_ 3, tcpTick_ 0.01,
# tcpip_base_hdr_size_ 40 (packetSize_ is the payload: wire size =
# packetSize_ + 40), singledup_ 1, maxburst_ 0; Agent/TCPSink acknowledges
# every packet (no delayed ACKs), 40-byte ACKs; Queue/RED wait_ 1, drop_tail_ 1,
# setbit_ 0 (bytes_/queue_in_bytes_ are set to 0 here; gentle_, thresh_,
# maxthresh_, linterm_, q_weight_, mean_pktsize_ explicitly); Queue/REM inw_ 1,
# qib_ 0, markpkts_ 0; Queue/PI setbit_ 0, queue_in_bytes_ 0; Queue/SFQ
# buckets_ 16 (maxqueue_ = buffer here); Queue/DRR mask_ 0 (buckets_, blimit_,
# quantum_ set here); Queue/Vq ecnlim_ 0.8, buflim_ 1, gamma_ 0.98,
# queue_in_bytes_ 1, markpkts_ 0; Queue/RED/RIO priority_method_ 0 (set to 1
# here: a packet is IN when its flow id fid_ is non-zero, `RIOQueue::enque`),
# in_thresh_ 15, in_maxthresh_ 30, in_linterm_ 50, gentle_ 0 (every threshold
# and linterm_ set here); Agent/TCP fid_ 0.

# ---- parameters ---------------------------------------------------------
array set P {
    duration 60 warmup 10 flows 10 cc newreno packet_size 1040
    bottleneck_rate 10 bottleneck_delay 20 access_rate 100 access_delay 2
    queue droptail buffer 100 min_th 5 max_th 15 max_p 0.1 w_q 0.002
    gentle 0 rem_gamma 0.001 rem_phi 1.001 rem_b_ref 20 rem_update 0.002
    pi_a 1.822e-05 pi_b 1.816e-05 pi_w 170 pi_q_ref 50
    vq_gamma 0.98 vq_ecnlim 0.8 sfq_buckets 16 drr_quantum 0
    two_way 0 loss 0 start_max 1 window 20 seed 1
    flows2 0 cc2 newreno cc_a 1 cc_b 0.5 cc_k 0 cc_l 1
    prio 0 prio2 0 rio_in_min_th 15 rio_in_max_th 30 rio_in_max_p 0.02
    start_times random
}
foreach a $argv {
    if {![regexp {^--([A-Za-z0-9_]+)=(.*)$} $a -> k v]} {
        puts stderr "bad argument $a (want --key=value)"; exit 2
    }
    set P($k) $v
}

set ns [new Simulator]
# Seeds: RED/REM/PI/ErrorModel draw from defaultRNG; start times from their own
# stream, so that they do not depend on the queue.
$defaultRNG seed $P(seed)
set startrng [new RNG]
$startrng seed [expr {$P(seed) * 7919 + 1}]
# start_times = shared: the start times of validation/params.py
# `shared_starts` (a Park-Miller generator both sides compute), so that both
# simulators start every flow at the same instant.
set lcg [expr {($P(seed) * 7919 + 1) % 2147483647}]
for {set j 0} {$j < 10} {incr j} { set lcg [expr {($lcg * 48271) % 2147483647}] }
proc start_time {} {
    global P startrng lcg
    if {$P(start_times) eq "shared"} {
        set lcg [expr {($lcg * 48271) % 2147483647}]
        return [expr {$lcg / 2147483647.0 * $P(start_max)}]
    }
    return [$startrng uniform 0 $P(start_max)]
}

set N $P(flows)
# all forward pairs: the `flows2` flows of `cc2` follow the `flows` of `cc`
set NT [expr {$N + $P(flows2)}]
set bw "$P(bottleneck_rate)Mb"
set bdel "$P(bottleneck_delay)ms"
set payload [expr {$P(packet_size) - 40}]
set adelays [split $P(access_delay) ","]

# ---- bottleneck queue ----------------------------------------------------
proc qtype {q} {
    switch -- $q {
        droptail { return DropTail }
        red - gred - ared { return RED }
        rio { return RED/RIO }
        rem { return REM }
        pi { return PI }
        sfq { return SFQ }
        drr { return DRR }
        avq - vq { return Vq }
        default { puts stderr "unknown queue $q"; exit 2 }
    }
}
set qt [qtype $P(queue)]

# Nodes in ccsim's dumbbell order (s_0..s_{N-1}, r1, r2, d_0..d_{N-1}), so that
# node addresses, which ns-2's SFQ and DRR hash, are the same on both sides.
for {set i 0} {$i < $NT} {incr i} { set s($i) [$ns node] }
set r1 [$ns node]
set r2 [$ns node]
for {set i 0} {$i < $NT} {incr i} { set d($i) [$ns node] }
$ns duplex-link $r1 $r2 $bw $bdel $qt
$ns queue-limit $r1 $r2 $P(buffer)
$ns queue-limit $r2 $r1 $P(buffer)

proc configure_queue {q} {
    global P payload
    switch -- $P(queue) {
        red - gred - ared {
            $q set bytes_ false
            $q set queue_in_bytes_ false
            $q set thresh_ $P(min_th)
            $q set maxthresh_ $P(max_th)
            $q set linterm_ [expr {1.0 / $P(max_p)}]
            $q set q_weight_ $P(w_q)
            $q set mean_pktsize_ $P(packet_size)
            set g [expr {$P(queue) eq "gred" || $P(queue) eq "ared" || $P(gentle)}]
            $q set gentle_ $g
            $q set adaptive_ [expr {$P(queue) eq "ared"}]
        }
        rem {
            $q set gamma_ $P(rem_gamma)
            $q set phi_ $P(rem_phi)
            $q set pbo_ $P(rem_b_ref)
            $q set pupdtime_ $P(rem_update)
            $q set mean_pktsize_ $P(packet_size)
        }
        pi {
            $q set a_ $P(pi_a)
            $q set b_ $P(pi_b)
            $q set w_ $P(pi_w)
            $q set qref_ $P(pi_q_ref)
            $q set mean_pktsize_ $P(packet_size)
        }
        sfq {
            $q set buckets_ $P(sfq_buckets)
            $q set maxqueue_ $P(buffer)
        }
        drr {
            # one bucket per source address (ns-2 hashes addresses into buckets_)
            $q set buckets_ [expr {2 * $P(flows) + 8}]
            set quantum [expr {$P(drr_quantum) > 0 ? $P(drr_quantum) : $P(packet_size)}]
            $q set quantum_ $quantum
            $q set blimit_ [expr {$P(buffer) * $P(packet_size)}]
        }
        rio {
            # RIO (queue/rio.cc): IN packets on in_* and their own average,
            # OUT packets on out_thresh_/out_maxthresh_ with RED's linterm_
            # and the total average; the drop precedence is the flow id
            # (priority_method_ 1: pri_ = fid_), the flow group's `prio`.
            $q set bytes_ false
            $q set queue_in_bytes_ false
            $q set priority_method_ 1
            $q set in_thresh_ $P(rio_in_min_th)
            $q set in_maxthresh_ $P(rio_in_max_th)
            $q set in_linterm_ [expr {1.0 / $P(rio_in_max_p)}]
            $q set out_thresh_ $P(min_th)
            $q set out_maxthresh_ $P(max_th)
            $q set thresh_ $P(min_th)
            $q set maxthresh_ $P(max_th)
            $q set linterm_ [expr {1.0 / $P(max_p)}]
            $q set q_weight_ $P(w_q)
            $q set mean_pktsize_ $P(packet_size)
            $q set gentle_ $P(gentle)
        }
        avq - vq {
            $q set gamma_ $P(vq_gamma)
            $q set ecnlim_ $P(vq_ecnlim)
            $q set mean_pktsize_ $P(packet_size)
        }
    }
}
foreach {a b} [list $r1 $r2 $r2 $r1] {
    configure_queue [[$ns link $a $b] queue]
}

if {$P(loss) > 0} {
    # Random loss after the bottleneck link r1->r2 (at its receiving end);
    # the drops go to a null agent, so the queue monitor does not count them.
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $P(loss)
    $em ranvar [new RandomVariable/Uniform]
    $ns link-lossmodel $em $r1 $r2
    # (after link-lossmodel, which points the drop target at the link's drophead)
    $em drop-target [new Agent/Null]
}

# ---- access links and agents ---------------------------------------------
proc tcp_agent {cc} {
    global P payload
    switch -- $cc {
        tahoe { set t [new Agent/TCP] }
        reno { set t [new Agent/TCP/Reno] }
        newreno { set t [new Agent/TCP/Newreno] }
        sack { set t [new Agent/TCP/Sack1] }
        vegas { set t [new Agent/TCP/Vegas] }
        aimd {
            # AIMD(a, b) through TcpAgent's options (tcp/tcp.cc: opencwnd
            # case 1 adds increase_num_ / cwnd_; slowdown multiplies by
            # decrease_num_, the first decrease halving)
            set t [new Agent/TCP/Newreno]
            $t set windowOption_ 1
            $t set increase_num_ $P(cc_a)
            $t set decrease_num_ [expr {1.0 - $P(cc_b)}]
        }
        binomial {
            # binomial controls, windowOption_ 6 (tcp/tcp.cc: opencwnd adds
            # increase_num_ / cwnd^(k+1); slowdown takes
            # (1 - decrease_num_) * w^l off the window)
            set t [new Agent/TCP/Newreno]
            $t set windowOption_ 6
            $t set increase_num_ $P(cc_a)
            $t set decrease_num_ [expr {1.0 - $P(cc_b)}]
            $t set k_parameter_ $P(cc_k)
            $t set l_parameter_ $P(cc_l)
        }
        cubic - bic - highspeed {
            set t [new Agent/TCP/Linux]
            $t set timestamps_ true
        }
        default { puts stderr "unknown cc $P(cc)"; exit 2 }
    }
    if {$cc eq "vegas"} {
        # VegasTcpAgent::output (tcp/tcp-vegas.cc) sends allocpkt()'s
        # packetSize_ bytes: no tcpip_base_hdr_size_ added (TcpAgent::output
        # adds it), and packet 0, the SYN, is full-sized too. packetSize_ =
        # packet_size keeps the wire size of the other agents; the goodput
        # still counts packet_size - 40 bytes per packet.
        $t set packetSize_ $P(packet_size)
    } else {
        $t set packetSize_ $payload
    }
    $t set window_ $P(window)
    return $t
}
proc tcp_sink {cc} {
    global P
    switch -- $cc {
        sack { return [new Agent/TCPSink/Sack1] }
        cubic - bic - highspeed {
            set k [new Agent/TCPSink/Sack1]
            $k set ts_echo_rfc1323_ true
            return $k
        }
        default { return [new Agent/TCPSink] }
    }
}

# fwd and rev hold {kind object payload} per flow: kind tcp (the agent, its
# ack_, nrexmit_, nrexmitpack_) or tfrc (the QueueMonitor of the flow's
# r2 -> d(i) link: TFRC data delivered, pdepartures_; no retransmissions).
set fwd {}
set rev {}
for {set i 0} {$i < $NT} {incr i} {
    set ad "[lindex $adelays [expr {$i % [llength $adelays]}]]ms"
    $ns duplex-link $s($i) $r1 "$P(access_rate)Mb" $ad DropTail
    $ns duplex-link $d($i) $r2 "$P(access_rate)Mb" $ad DropTail
    foreach {a b} [list $s($i) $r1 $r1 $s($i) $d($i) $r2 $r2 $d($i)] {
        $ns queue-limit $a $b 1000
    }
    set dirs [list [list $s($i) $d($i) fwd]]
    if {$P(two_way)} { lappend dirs [list $d($i) $s($i) rev] }
    set cc [expr {$i < $N ? $P(cc) : $P(cc2)}]
    foreach dir $dirs {
        foreach {src dst side} $dir {}
        if {$cc eq "tfrc"} {
            # Agent/TFRC sends packetSize_ + headersize_ (32) bytes
            # (tcp/tfrc.cc sendpkt, useHeaders_ 1): the same wire size
            set t [new Agent/TFRC]
            set tp [expr {$P(packet_size) - [$t set headersize_]}]
            $t set packetSize_ $tp
            $t set fid_ $i
            set k [new Agent/TFRCSink]
            $ns attach-agent $src $t
            $ns attach-agent $dst $k
            $ns connect $t $k
            set st [start_time]
            $ns at $st "$t start"
            set m [$ns monitor-queue $r2 $dst [open /dev/null w]]
            lappend $side [list tfrc $m $tp]
            continue
        }
        set t [tcp_agent $cc]
        # the drop precedence of RIO (the flow id; 0 elsewhere, ns-2's default)
        $t set fid_ [expr {$i < $N ? $P(prio) : $P(prio2)}]
        set k [tcp_sink $cc]
        $ns attach-agent $src $t
        $ns attach-agent $dst $k
        $ns connect $t $k
        set ftp [new Application/FTP]
        $ftp attach-agent $t
        set st [start_time]
        if {$cc eq "cubic" || $cc eq "bic" || $cc eq "highspeed"} {
            $ns at 0 "$t select_ca $cc"
        }
        $ns at $st "$ftp start"
        lappend $side [list tcp $t $payload]
    }
}

# ---- monitors --------------------------------------------------------------
# --trace=FILE (not a twin parameter: for investigations) writes the r1->r2
# queue's events in ns-2's trace format, as ccsim's `[output] trace = "ns2"`.
if {[info exists P(trace)]} {
    set tf [open $P(trace) w]
    $ns trace-queue $r1 $r2 $tf
}
set qmf [new QueueMonitor]
set qmr [new QueueMonitor]
set devnull [open /dev/null w]
set qm(fwd) [$ns monitor-queue $r1 $r2 $devnull]
set qm(rev) [$ns monitor-queue $r2 $r1 $devnull]

proc delivered {f} {
    # {packets delivered in order, timeouts, retransmitted packets, payload}
    foreach {kind o pl} $f {}
    if {$kind eq "tfrc"} { return [list [$o set pdepartures_] 0 0 $pl] }
    return [list [$o set ack_] [$o set nrexmit_] [$o set nrexmitpack_] $pl]
}

proc snapshot {} {
    # counters of both queues and all agents at the current time
    global ns qm fwd rev
    set now [$ns now]
    set out [dict create]
    foreach side {fwd rev} {
        set m $qm($side)
        set int [$m get-pkts-integrator]
        $int newpoint $now [$m set pkts_]
        dict set out $side [list [$m set parrivals_] [$m set pdrops_] \
            [$m set bdepartures_] [$int set sum_]]
    }
    foreach side {fwd rev} {
        set l {}
        foreach f [set $side] {
            lappend l [delivered $f]
        }
        dict set out ${side}_tcp $l
    }
    return $out
}

set series {}
set last_acks {}
proc sample_goodput {} {
    # aggregate forward goodput of the last 1 s interval
    global ns fwd payload series last_acks P
    set acks {}
    foreach f $fwd { lappend acks [delivered $f] }
    if {[llength $last_acks]} {
        set g 0.0
        foreach a $acks b $last_acks {
            # before the first ACK ack_ is -1; the SYN is packet 0 (syn_ 1)
            set g [expr {$g + max(0, [lindex $a 0] - max([lindex $b 0], 0)) * [lindex $a 3]}]
        }
        lappend series [expr {$g * 8.0}]
    }
    set last_acks $acks
}
# samples at 0, 1, ..., duration - 1 s; finish takes the last one
for {set t 0} {$t < $P(duration) - 1e-9} {incr t} { $ns at $t "sample_goodput" }

proc mark_warmup {} { global W; set W [snapshot] }
$ns at $P(warmup) "mark_warmup"

proc jsonnum {x} {
    if {$x != $x} { return null }
    return [format %.10g $x]
}

proc finish {} {
    global ns W P payload series tf
    sample_goodput
    if {[info exists tf]} { flush $tf }
    set E [snapshot]
    set win [expr {$P(duration) - $P(warmup)}]
    set rate [expr {$P(bottleneck_rate) * 1e6}]
    set res [dict create]
    foreach side {fwd rev} pre {"" rev_} {
        foreach {a0 d0 b0 s0} [dict get $W $side] {}
        foreach {a1 d1 b1 s1} [dict get $E $side] {}
        set arr [expr {$a1 - $a0}]
        dict set res ${pre}utilization [expr {($b1 - $b0) * 8.0 / ($rate * $win)}]
        dict set res ${pre}drop_rate [expr {$arr > 0 ? double($d1 - $d0) / $arr : 0.0}]
        dict set res ${pre}avg_queue_pkts [expr {($s1 - $s0) / $win}]
        set gs {}
        set to 0
        set rx 0
        foreach w [dict get $W ${side}_tcp] e [dict get $E ${side}_tcp] {
            lassign $w k0 n0 r0
            lassign $e k1 n1 r1 pl
            lappend gs [expr {max(0, $k1 - max($k0, 0)) * $pl * 8.0 / $win}]
            incr to [expr {$n1 - $n0}]
            incr rx [expr {$r1 - $r0}]
        }
        set sum 0.0; set sq 0.0
        foreach g $gs { set sum [expr {$sum + $g}]; set sq [expr {$sq + $g * $g}] }
        dict set res ${pre}goodput_bps $sum
        if {$side eq "fwd"} {
            set n [llength $gs]
            dict set res jain [expr {$sq > 0 ? $sum * $sum / ($n * $sq) : 1.0}]
            dict set res timeouts $to
            dict set res retransmissions $rx
            dict set res per_flow_goodput_bps $gs
        } else {
            dict set res rev_timeouts $to
            dict set res rev_retransmissions $rx
        }
    }
    set items {}
    foreach k {utilization drop_rate avg_queue_pkts goodput_bps jain timeouts retransmissions} {
        lappend items "\"$k\": [jsonnum [dict get $res $k]]"
    }
    if {$P(two_way)} {
        foreach k {rev_utilization rev_drop_rate rev_avg_queue_pkts rev_goodput_bps rev_timeouts rev_retransmissions} {
            lappend items "\"$k\": [jsonnum [dict get $res $k]]"
        }
    }
    set l {}
    foreach g $series { lappend l [jsonnum $g] }
    lappend items "\"goodput_series\": \[[join $l ", "]\]"
    set l {}
    foreach g [dict get $res per_flow_goodput_bps] { lappend l [jsonnum $g] }
    lappend items "\"per_flow_goodput_bps\": \[[join $l ", "]\]"
    puts "{[join $items ", "]}"
    exit 0
}
$ns at $P(duration) "finish"
$ns run

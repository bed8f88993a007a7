// ns-3 side of the differential validation suite (validation/README.md).
//
// One parameterized dumbbell, the twin of validation/ns2/dumbbell.tcl: N
// sources s(i) -> r1 -> r2 -> N sinks d(i) over point-to-point links; access
// links at access_rate/access_delay (a comma-separated access_delay list is
// cycled over the pairs), the bottleneck r1 <-> r2 at
// bottleneck_rate/bottleneck_delay with the chosen queue disc (limit
// `buffer` packets) on both directions; BulkSend over the chosen TCP; with
// two_way = 1 a reverse flow d(i) -> s(i) per pair.
//
// Usage: dumbbell --key=value ...   (the keys of validation/params.py, plus
// seed). Prints one JSON object on its last stdout line.
//
// Settings that make the network the same as ccsim's (compat = "ns3"):
//   - the bottleneck devices' transmit queue holds 1 packet, so the backlog
//     waits in the queue disc (the traffic-control layer stops the disc while
//     the device queue is full); access devices keep ns-3's defaults;
//   - TCP: SegmentSize = packet_size - 40, Timestamp off (40-byte headers),
//     SACK on (ns-3.44's default; ccsim's ns3 profile then recovers by RFC 6675), TcpClassicRecovery
//     (ccsim has no PRR), RcvBufSize = window segments; every other attribute
//     is ns-3.44's default (MinRto 1 s, ClockGranularity 1 ms, InitialCwnd 10,
//     DelAckCount 2): ccsim's ns3 profile uses the same values;
//   - queue discs: MaxSize = buffer packets; RED thresholds, max_p (LInterm =
//     1/max_p), QW and MeanPktSize = packet_size set explicitly; fq_codel and
//     fq_cobalt with UseEcn false (the twins' TCP is not ECN-capable but for
//     DCTCP); every other attribute at ns-3.44's default (fq_cobalt, read
//     from the wheel: Interval 100ms, Target 5ms, Flows 1024, DropBatchSize
//     64, Perturbation 0, EnableSetAssociativeHash false, Pdrop 0, Increment
//     1/256, Decrement 1/4096, BlueThreshold 400ms; quantum = the device's
//     Mtu, 1500).
//
// Metrics over [warmup, duration] on r1->r2 (and r2->r1 as rev_*):
//   utilization     bytes the bottleneck device started sending (PhyTxBegin,
//                   IP size: the 2-byte PPP header is left out as ccsim has
//                   none) * 8 / (rate * window)
//   drop_rate       the queue disc's drops / packets it received
//   avg_queue_pkts  time average of the queue disc's length (the packet in
//                   the device queue is not counted)
//   goodput_bps     payload bytes received by the sinks * 8 / window
//   jain            Jain's index of the per-flow goodput
//   timeouts        RTO expirations with data outstanding, as ns-2's
//                   nrexmit_ and ccsim count them: every expiry doubles the
//                   socket's RTO (TcpSocketBase::ReTxTimeout), so a change of
//                   the "RTO" trace to twice its value (or to the 60 s cap)
//                   is one. (The "CongState" trace fires only on a change,
//                   so entries into CA_LOSS miss the backed-off repeats.)
//   retransmissions data segments sent again (sequence below the highest sent)
//   goodput_series  aggregate goodput per 1 s over the whole run

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct Params
{
    double duration = 60, warmup = 10;
    uint32_t flows = 10;
    std::string cc = "newreno";
    uint32_t packetSize = 1040;
    double bottleneckRate = 10, bottleneckDelay = 20, accessRate = 100;
    std::string accessDelay = "2";
    std::string queue = "droptail";
    uint32_t buffer = 100;
    double minTh = 5, maxTh = 15, maxP = 0.1, wQ = 0.002;
    uint32_t gentle = 0, twoWay = 0, markThreshold = 0;
    double loss = 0, startMax = 1;
    uint32_t window = 20, seed = 1;
    bool sack = true;
    std::string trace; // a packet trace of the forward bottleneck (investigations only)
    std::string ccTrace; // the forward senders' congestion state changes (investigations only)
    std::string startList; // start times, s, in flow order, instead of drawn ones (investigations only)
    std::string fqQueues;  // fq_codel, fq_cobalt: the flow queues ccsim is given; checked against ns-3's own hash
};

// Per-direction counters of the bottleneck.
struct Link
{
    Ptr<QueueDisc> disc;
    uint64_t txBytes = 0;
    double qIntegral = 0, qLast = 0, qLen = 0;
    uint64_t arrivals0 = 0, drops0 = 0, arrivals1 = 0, drops1 = 0;
};

bool g_counting = false;
double g_tWarm = 0;

// The packet trace of the forward bottleneck (--trace=FILE): one line per
// event, "<ev> <time s> <flow> <segment number> <bytes>", ev "+" (the
// queue disc accepted it), "d" (the disc dropped it), "-" (the device
// started sending it); the flow is the sink's port less 5000 (every source
// node's ephemeral port is the same), so forward flow i is i as in ccsim's
// trace. Segment numbers count from 0 for the first data
// segment (payload `g_seg` bytes), as ccsim's ns-2 trace does.
std::ofstream g_trace;
uint32_t g_seg = 1000;

void
TraceTcp(const char* ev, Ptr<const Packet> p, uint32_t ipBytes)
{
    TcpHeader th;
    if (p->PeekHeader(th) == 0)
    {
        return;
    }
    int64_t seq = p->GetSize() > th.GetSerializedSize()
                      ? (static_cast<int64_t>(th.GetSequenceNumber().GetValue()) - 1) / g_seg
                      : -1;
    g_trace << ev << " " << std::fixed << std::setprecision(9) << Simulator::Now().GetSeconds() << " "
            << (th.GetDestinationPort() - 5000) << " " << seq << " " << ipBytes << "\n";
}

void
TraceDisc(const char* ev, Ptr<const QueueDiscItem> item)
{
    TraceTcp(ev, item->GetPacket(), item->GetSize());
}

void
TraceEnqueue(Ptr<const QueueDiscItem> item)
{
    TraceDisc("+", item);
}

void
TraceDrop(Ptr<const QueueDiscItem> item)
{
    TraceDisc("d", item);
}

void
TraceTx(Ptr<const Packet> p)
{
    Ptr<Packet> c = p->Copy();
    PppHeader ppp;
    c->RemoveHeader(ppp);
    Ipv4Header ip;
    c->RemoveHeader(ip);
    TraceTcp("-", c, ip.GetPayloadSize() + ip.GetSerializedSize());
}

void
PhyTx(Link* l, Ptr<const Packet> p)
{
    if (g_counting)
    {
        l->txBytes += p->GetSize() - 2; // the PPP header
    }
}

void
QueueLen(Link* l, uint32_t, uint32_t now)
{
    double t = Simulator::Now().GetSeconds();
    if (g_counting)
    {
        l->qIntegral += l->qLen * (t - std::max(l->qLast, g_tWarm));
    }
    l->qLast = t;
    l->qLen = now;
}

// The senders' congestion state (--cc_trace=FILE): one line per change,
// "<time s> <flow> <what> <old> <new>", what = cwnd or ssthresh (bytes), state
// (TcpSocketState::TcpCongState_t), rto (s).
std::ofstream g_ccTrace;

template <typename T>
void
TraceCc(std::pair<uint32_t, const char*> who, T before, T after)
{
    g_ccTrace << std::fixed << std::setprecision(6) << Simulator::Now().GetSeconds() << " " << who.first
              << " " << who.second << " " << before << " " << after << "\n";
}

void
TraceRto(std::pair<uint32_t, const char*> who, Time before, Time after)
{
    TraceCc(who, before.GetSeconds(), after.GetSeconds());
}

// With --cc_trace and fq_codel or fq_cobalt: the flow queue each forward
// flow hashes to (`FqCoDelQueueDisc::DoEnqueue`, `FqCobaltQueueDisc::DoEnqueue`:
// item->Hash(Perturbation 0) % Flows 1024).
std::map<uint32_t, uint32_t> g_bucket;

void
TraceBucket(Ptr<const QueueDiscItem> item)
{
    TcpHeader th;
    if (item->GetPacket()->PeekHeader(th) != 0)
    {
        g_bucket.emplace(th.GetDestinationPort() - 5000, item->Hash(0) % 1024);
    }
}

struct Sender
{
    uint32_t timeouts = 0, rtx = 0;
    SequenceNumber32 highest{0};
    bool any = false;
};

void
RtoChange(Sender* s, Time before, Time after)
{
    // A new RTO computed from an RTT sample is (practically) never exactly
    // twice the old one; ReTxTimeout's doubling always is, up to the cap.
    bool doubled = after == before + before || (after == Seconds(60) && before + before > after);
    if (g_counting && doubled)
    {
        s->timeouts++;
    }
}

void
TxSeg(Sender* s, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    SequenceNumber32 seq = h.GetSequenceNumber();
    if (s->any && seq < s->highest)
    {
        if (g_counting)
        {
            s->rtx++;
        }
    }
    else
    {
        s->highest = seq;
        s->any = true;
    }
}

std::vector<double>
SplitDelays(const std::string& s)
{
    std::vector<double> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        if (!item.empty())
        {
            out.push_back(std::stod(item));
        }
    }
    return out;
}

std::string
TcpType(const std::string& cc)
{
    if (cc == "newreno" || cc == "reno")
        return "ns3::TcpNewReno";
    if (cc == "cubic")
        return "ns3::TcpCubic";
    if (cc == "bic")
        return "ns3::TcpBic";
    if (cc == "vegas")
        return "ns3::TcpVegas";
    if (cc == "highspeed")
        return "ns3::TcpHighSpeed";
    if (cc == "bbr")
        return "ns3::TcpBbr";
    if (cc == "dctcp")
        return "ns3::TcpDctcp";
    NS_FATAL_ERROR("cc " << cc << " has no ns-3 twin");
}

TrafficControlHelper
DiscFor(const Params& p)
{
    TrafficControlHelper tch;
    std::string size = std::to_string(p.buffer) + "p";
    if ((p.queue == "droptail" || p.queue == "fifo") && p.markThreshold > 0)
    {
        // Step ECN marking at K, as ns-3's DCTCP examples configure it: RED
        // with MinTh = MaxTh = K and QW = 1 (the average is the queue at the
        // arrival), marking instead of dropping above MaxTh.
        double k = p.markThreshold;
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", StringValue(size),
                             "MinTh", DoubleValue(k),
                             "MaxTh", DoubleValue(k),
                             "QW", DoubleValue(1.0),
                             "Gentle", BooleanValue(false),
                             "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false),
                             "MeanPktSize", UintegerValue(p.packetSize));
    }
    else if (p.queue == "droptail" || p.queue == "fifo")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(size));
    }
    else if (p.queue == "red" || p.queue == "gred" || p.queue == "ared" || p.queue == "nlred")
    {
        bool gentle = p.queue == "gred" || p.queue == "ared" || p.gentle;
        tch.SetRootQueueDisc("ns3::RedQueueDisc",
                             "MaxSize", StringValue(size),
                             "MinTh", DoubleValue(p.minTh),
                             "MaxTh", DoubleValue(p.maxTh),
                             "LInterm", DoubleValue(1.0 / p.maxP),
                             "QW", DoubleValue(p.wQ),
                             "Gentle", BooleanValue(gentle),
                             "NLRED", BooleanValue(p.queue == "nlred"),
                             // ns-3's `ARED` also resets the thresholds and
                             // QW to its automatic values; the twin sets them,
                             // so only max_p adapts (`AdaptMaxP`, as ccsim's
                             // ared with explicit thresholds)
                             "AdaptMaxP", BooleanValue(p.queue == "ared"),
                             "MeanPktSize", UintegerValue(p.packetSize));
    }
    else if (p.queue == "cobalt")
    {
        tch.SetRootQueueDisc("ns3::CobaltQueueDisc", "MaxSize", StringValue(size));
    }
    else if (p.queue == "codel")
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", StringValue(size));
    }
    else if (p.queue == "fq_codel")
    {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", StringValue(size), "UseEcn", BooleanValue(false));
    }
    else if (p.queue == "fq_cobalt")
    {
        // FQ-CoDel's scheduler with a CobaltQueueDisc per flow queue (ccsim:
        // cake under variant "ns3", validation/ccsim_side.py).
        tch.SetRootQueueDisc("ns3::FqCobaltQueueDisc", "MaxSize", StringValue(size), "UseEcn", BooleanValue(false));
    }
    else if (p.queue == "pie")
    {
        tch.SetRootQueueDisc("ns3::PieQueueDisc", "MaxSize", StringValue(size), "MeanPktSize", UintegerValue(p.packetSize));
    }
    else
    {
        NS_FATAL_ERROR("queue " << p.queue << " has no ns-3 twin");
    }
    return tch;
}

double
Jain(const std::vector<double>& x)
{
    double s = 0, s2 = 0;
    for (double v : x)
    {
        s += v;
        s2 += v * v;
    }
    return s2 > 0 ? s * s / (x.size() * s2) : 1.0;
}

} // namespace

int
main(int argc, char* argv[])
{
    Params p;
    CommandLine cmd;
    cmd.AddValue("duration", "s", p.duration);
    cmd.AddValue("warmup", "s", p.warmup);
    cmd.AddValue("flows", "forward flows", p.flows);
    cmd.AddValue("cc", "congestion control", p.cc);
    cmd.AddValue("packet_size", "bytes on the wire (40 header bytes included)", p.packetSize);
    cmd.AddValue("bottleneck_rate", "Mbps", p.bottleneckRate);
    cmd.AddValue("bottleneck_delay", "ms", p.bottleneckDelay);
    cmd.AddValue("access_rate", "Mbps", p.accessRate);
    cmd.AddValue("access_delay", "ms, or a comma-separated list", p.accessDelay);
    cmd.AddValue("queue", "queue disc", p.queue);
    cmd.AddValue("buffer", "packets", p.buffer);
    cmd.AddValue("min_th", "RED", p.minTh);
    cmd.AddValue("max_th", "RED", p.maxTh);
    cmd.AddValue("max_p", "RED", p.maxP);
    cmd.AddValue("w_q", "RED", p.wQ);
    cmd.AddValue("gentle", "RED", p.gentle);
    cmd.AddValue("mark_threshold", "droptail: step ECN marking at K packets (0: none)", p.markThreshold);
    cmd.AddValue("two_way", "0|1", p.twoWay);
    cmd.AddValue("loss", "random loss after r1->r2", p.loss);
    cmd.AddValue("start_max", "s", p.startMax);
    cmd.AddValue("window", "receiver window, segments", p.window);
    cmd.AddValue("seed", "run", p.seed);
    cmd.AddValue("sack", "SACK (ns-3 default on)", p.sack);
    cmd.AddValue("trace", "write a packet trace of the forward bottleneck to this file", p.trace);
    cmd.AddValue("fq_queues", "fq_codel, fq_cobalt: the forward flows' queues given to ccsim (checked against ns-3's hash)", p.fqQueues);
    cmd.AddValue("start_list", "comma-separated start times (s) of the flows in order, instead of drawn ones", p.startList);
    cmd.AddValue("cc_trace", "write the forward senders' cwnd, ssthresh, state and RTO changes to this file", p.ccTrace);
    // the ns-2-only keys of the shared vocabulary are accepted and ignored
    std::string ignored;
    for (const char* k : {"rem_gamma", "rem_phi", "rem_b_ref", "rem_update", "pi_a", "pi_b", "pi_w", "pi_q_ref",
                          "vq_gamma", "vq_ecnlim", "sfq_buckets", "drr_quantum"})
    {
        cmd.AddValue(k, "ns-2 only", ignored);
    }
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(p.seed);
    g_tWarm = p.warmup;

    uint32_t seg = p.packetSize - 40;
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(TcpType(p.cc)));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(seg));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    bool sack = p.sack;
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(p.window * seg));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));

    uint32_t n = p.flows;
    NodeContainer routers, src, dst;
    routers.Create(2);
    src.Create(n);
    dst.Create(n);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper bn;
    bn.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(p.bottleneckRate * 1e6))));
    bn.SetChannelAttribute("Delay", TimeValue(MicroSeconds(uint64_t(std::llround(p.bottleneckDelay * 1000)))));
    bn.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer core = bn.Install(routers.Get(0), routers.Get(1));

    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    TrafficControlHelper tch = DiscFor(p);
    QueueDiscContainer discs = tch.Install(core);
    addr.Assign(core);
    addr.NewNetwork();

    std::vector<double> delays = SplitDelays(p.accessDelay);
    PointToPointHelper acc;
    acc.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(p.accessRate * 1e6))));
    std::vector<Ipv4Address> srcAddr(n), dstAddr(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        double d = delays[i % delays.size()];
        acc.SetChannelAttribute("Delay", TimeValue(MicroSeconds(uint64_t(std::llround(d * 1000)))));
        NetDeviceContainer a = acc.Install(src.Get(i), routers.Get(0));
        srcAddr[i] = addr.Assign(a).GetAddress(0);
        addr.NewNetwork();
        NetDeviceContainer b = acc.Install(dst.Get(i), routers.Get(1));
        dstAddr[i] = addr.Assign(b).GetAddress(0);
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    if (p.loss > 0)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
        em->SetAttribute("ErrorRate", DoubleValue(p.loss));
        core.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }

    // The bottleneck's counters, per direction.
    Link fwd, rev;
    fwd.disc = discs.Get(0);
    rev.disc = discs.Get(1);
    core.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&PhyTx, &fwd));
    core.Get(1)->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&PhyTx, &rev));
    fwd.disc->TraceConnectWithoutContext("PacketsInQueue", MakeBoundCallback(&QueueLen, &fwd));
    rev.disc->TraceConnectWithoutContext("PacketsInQueue", MakeBoundCallback(&QueueLen, &rev));
    if (!p.ccTrace.empty())
    {
        g_ccTrace.open(p.ccTrace);
    }
    if ((p.queue == "fq_codel" || p.queue == "fq_cobalt") && (!p.ccTrace.empty() || !p.fqQueues.empty()))
    {
        fwd.disc->TraceConnectWithoutContext("Enqueue", MakeCallback(&TraceBucket));
    }
    if (!p.trace.empty())
    {
        g_seg = seg;
        g_trace.open(p.trace);
        fwd.disc->TraceConnectWithoutContext("Enqueue", MakeCallback(&TraceEnqueue));
        fwd.disc->TraceConnectWithoutContext("Drop", MakeCallback(&TraceDrop));
        core.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&TraceTx));
    }

    Ptr<UniformRandomVariable> start = CreateObject<UniformRandomVariable>();
    start->SetAttribute("Min", DoubleValue(0));
    start->SetAttribute("Max", DoubleValue(p.startMax));

    struct Flow
    {
        Ptr<PacketSink> sink;
        uint64_t rx0 = 0, rx1 = 0;
        Ptr<Node> from;
        bool reverse;
        double start = 0;
    };
    std::vector<Flow> flowv;
    uint16_t port = 5000;
    auto addFlow = [&](Ptr<Node> from, Ptr<Node> to, Ipv4Address toAddr, bool reverse) {
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(toAddr, port));
        bulk.SetAttribute("MaxBytes", UintegerValue(0));
        bulk.SetAttribute("SendSize", UintegerValue(seg));
        ApplicationContainer app = bulk.Install(from);
        std::vector<double> fixed = SplitDelays(p.startList);
        double at = fixed.size() > flowv.size() ? fixed[flowv.size()] : start->GetValue();
        app.Start(Seconds(at));
        PacketSinkHelper sinkh("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkh.Install(to);
        sa.Start(Seconds(0));
        Flow f;
        f.sink = DynamicCast<PacketSink>(sa.Get(0));
        f.from = from;
        f.reverse = reverse;
        f.start = at;
        flowv.push_back(f);
        ++port;
    };
    for (uint32_t i = 0; i < n; ++i)
    {
        addFlow(src.Get(i), dst.Get(i), dstAddr[i], false);
    }
    if (p.twoWay)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            addFlow(dst.Get(i), src.Get(i), srcAddr[i], true);
        }
    }

    // The senders' sockets exist once the applications have started.
    std::vector<Sender> senders(flowv.size());
    // Match each flow to its BulkSend by position on its node.
    std::map<uint32_t, uint32_t> nextApp;
    std::vector<Ptr<BulkSendApplication>> bulkOf(flowv.size());
    for (size_t k = 0; k < flowv.size(); ++k)
    {
        Ptr<Node> node = flowv[k].from;
        uint32_t& idx = nextApp[node->GetId()];
        while (idx < node->GetNApplications() && !DynamicCast<BulkSendApplication>(node->GetApplication(idx)))
        {
            ++idx;
        }
        bulkOf[k] = DynamicCast<BulkSendApplication>(node->GetApplication(idx));
        ++idx;
    }
    Simulator::Schedule(Seconds(p.startMax + 1e-6), [&]() {
        for (size_t k = 0; k < flowv.size(); ++k)
        {
            Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(bulkOf[k]->GetSocket());
            if (!s)
                continue;
            s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&RtoChange, &senders[k]));
            s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&TxSeg, &senders[k]));
        }
    });
    // --cc_trace: connected as each sender's socket opens.
    for (size_t k = 0; k < flowv.size() && !p.ccTrace.empty(); ++k)
    {
        if (flowv[k].reverse)
            continue;
        Simulator::Schedule(Seconds(flowv[k].start) + NanoSeconds(1), [&, k]() {
            Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(bulkOf[k]->GetSocket());
            auto who = [k](const char* what) { return std::make_pair(uint32_t(k), what); };
            s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&TraceCc<uint32_t>, who("cwnd")));
            s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&TraceCc<uint32_t>, who("ssthresh")));
            s->TraceConnectWithoutContext("CongState",
                                          MakeBoundCallback(&TraceCc<TcpSocketState::TcpCongState_t>, who("state")));
            s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&TraceRto, who("rto")));
        });
    }

    // Goodput series: aggregate sink bytes per second over the whole run.
    std::vector<double> series;
    uint64_t lastTotal = 0;
    std::function<void()> tick = [&]() {
        uint64_t total = 0;
        for (auto& f : flowv)
            if (!f.reverse)
                total += f.sink->GetTotalRx();
        series.push_back(double(total - lastTotal) * 8.0);
        lastTotal = total;
        if (Simulator::Now().GetSeconds() + 1 <= p.duration + 1e-9)
            Simulator::Schedule(Seconds(1), tick);
    };
    Simulator::Schedule(Seconds(1), tick);

    Simulator::Schedule(Seconds(p.warmup), [&]() {
        g_counting = true;
        for (auto& f : flowv)
            f.rx0 = f.sink->GetTotalRx();
        for (Link* l : {&fwd, &rev})
        {
            const QueueDisc::Stats& st = l->disc->GetStats();
            l->arrivals0 = st.nTotalReceivedPackets;
            l->drops0 = st.nTotalDroppedPackets;
            l->qLast = p.warmup;
            l->qLen = l->disc->GetNPackets();
        }
    });
    Simulator::Schedule(Seconds(p.duration), [&]() {
        for (auto& f : flowv)
            f.rx1 = f.sink->GetTotalRx();
        for (Link* l : {&fwd, &rev})
        {
            const QueueDisc::Stats& st = l->disc->GetStats();
            l->arrivals1 = st.nTotalReceivedPackets;
            l->drops1 = st.nTotalDroppedPackets;
            l->qIntegral += l->qLen * (p.duration - std::max(l->qLast, p.warmup));
        }
        g_counting = false;
    });
    Simulator::Stop(Seconds(p.duration + 1e-6));
    Simulator::Run();

    double window = p.duration - p.warmup;
    double rate = p.bottleneckRate * 1e6;
    auto dirMetrics = [&](const Link& l, bool reverse, const std::string& pre, std::ostringstream& o) {
        std::vector<double> gp;
        double total = 0;
        uint32_t to = 0, rtx = 0;
        for (size_t k = 0; k < flowv.size(); ++k)
        {
            if (flowv[k].reverse != reverse)
                continue;
            double g = double(flowv[k].rx1 - flowv[k].rx0) * 8.0 / window;
            gp.push_back(g);
            total += g;
            to += senders[k].timeouts;
            rtx += senders[k].rtx;
        }
        uint64_t arr = l.arrivals1 - l.arrivals0, drops = l.drops1 - l.drops0;
        o << "\"" << pre << "utilization\": " << l.txBytes * 8.0 / (rate * window) << ", ";
        o << "\"" << pre << "drop_rate\": " << (arr ? double(drops) / arr : 0.0) << ", ";
        o << "\"" << pre << "avg_queue_pkts\": " << l.qIntegral / window << ", ";
        o << "\"" << pre << "goodput_bps\": " << total << ", ";
        o << "\"" << pre << "jain\": " << Jain(gp) << ", ";
        o << "\"" << pre << "timeouts\": " << to << ", ";
        o << "\"" << pre << "retransmissions\": " << rtx << ", ";
        o << "\"" << pre << "per_flow_goodput_bps\": [";
        for (size_t i = 0; i < gp.size(); ++i)
            o << (i ? ", " : "") << gp[i];
        o << "]";
    };
    std::ostringstream o;
    o << std::setprecision(10) << "{";
    dirMetrics(fwd, false, "", o);
    if (p.twoWay)
    {
        o << ", ";
        dirMetrics(rev, true, "rev_", o);
    }
    o << ", \"goodput_series\": [";
    for (size_t i = 0; i < series.size(); ++i)
        o << (i ? ", " : "") << series[i];
    o << "]}";
    std::vector<double> given = SplitDelays(p.fqQueues);
    for (auto [flow, bucket] : g_bucket)
    {
        if (g_ccTrace.is_open())
        {
            g_ccTrace << "0 " << flow << " bucket 0 " << bucket << "\n";
        }
        if (flow < given.size() && given[flow] != bucket)
        {
            std::cerr << "fq_queues: flow " << flow << " is in queue " << bucket << ", not " << given[flow] << std::endl;
        }
    }
    Simulator::Destroy();
    std::cout << o.str() << std::endl;
    return 0;
}

"""RED in Python: the built-in `red` (packet mode, ns-2's defaults and rules), as a ccsim.QueueDisc.

Floyd and Jacobson 1993, Figure 2, with ns-2 queue/red.cc's `wait` gaps, its
small-queue rule and its sparing of the first arrival over min_th: the same
arithmetic and the same random draws as crates/ccsim-core/src/queue/red.rs,
so a scenario gives identical results with either (docs/extending.md).
Named in a scenario as `kind = "python:python_red.Red"`.
"""

import math
from collections import deque

import ccsim


class Red(ccsim.QueueDisc):
    def __init__(
        self, min_th: float = 5, max_th: float = 15, max_p: float = 0.1, weight: float = 0.002, mean_pkt_size: int = 500
    ) -> None:
        self.min_th, self.max_th, self.max_p, self.w = min_th, max_th, max_p, weight
        self.s = mean_pkt_size * 8.0 * 1e9 / self.link_rate_bps  # ns to send a mean packet
        self.fifo: deque[ccsim.Packet] = deque()
        self.avg, self.count = 0.0, -1
        self.idle_since: int | None = 0  # the link is idle from t = 0

    def enqueue(self, now: int, pkt: ccsim.Packet) -> bool | str:
        q, m = self.len_pkts, 0.0
        if self.idle_since is not None and now > self.idle_since:  # decay for the idle time
            m, self.idle_since = math.floor((now - self.idle_since) / self.s), now
        self.avg = self.avg * (1.0 - self.w) ** m * (1.0 - self.w) + self.w * q
        if self.avg < self.min_th or q <= 1:  # no test while at most one packet waits
            self.count = -1
        elif self.avg >= self.max_th:
            self.count = 0
            return "forced"
        elif self.count < 0:  # the first arrival over min_th is spared
            self.count = 1
        else:
            self.count += 1
            pb = self.max_p * ((self.avg - self.min_th) / (self.max_th - self.min_th))
            cp = self.count * pb  # ns-2's `wait`: gaps uniform on {1/pb, ..., 2/pb - 1}
            pa = 0.0 if cp < 1.0 else (pb / (2.0 - cp) if cp < 2.0 else 1.0)
            if pa > 0.0 and self.random() < pa:
                self.count = 0
                return "early"
        if not self.fits(pkt.size):
            self.count = min(self.count, 0)
            return "overflow"
        self.fifo.append(pkt)
        self.idle_since = None
        return True

    def dequeue(self, now: int) -> ccsim.Packet | None:
        if not self.fifo:
            return None
        pkt = self.fifo.popleft()
        if not self.fifo:  # the link goes idle when this packet's transmission ends
            self.idle_since = now + self.tx_time(pkt.size)
        return pkt

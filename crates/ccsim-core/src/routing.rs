//! Static shortest-path routing by hop count, computed once before the run.
//!
//! For every destination a breadth-first search runs over the reversed
//! links. Ties are broken deterministically: links are examined in the order
//! they were created, and the first link that reaches a node at its shortest
//! distance wins.
//!
//! [`Routes`] keeps the table compact: a *stub* node (one link out and one
//! link in, both to the same neighbour: a host on an access link) is reached
//! through that neighbour, so a search runs only for the other nodes, and a
//! dumbbell of N pairs needs 2 searches and 4N + 4 entries per destination
//! router instead of (2N + 2)^2 entries. The next hop towards a stub is the
//! next hop towards its neighbour (the search from the stub reaches the
//! neighbour first and then everything else in the same order as the search
//! from the neighbour), so the routes are those of [`shortest_paths`].

use crate::link::Link;
use std::collections::VecDeque;

/// No route (or the node is the destination).
pub const NO_ROUTE: u32 = u32::MAX;

/// routes[node * n + dst] = index of the egress link from `node` towards
/// `dst`, or u32::MAX when `dst` is unreachable (or `node == dst`). Quadratic
/// in memory: [`Routes`] is what the simulation uses; this is its reference.
pub fn shortest_paths(n: usize, links: &[Link]) -> Vec<u32> {
    dense(n, &ends(links))
}

/// Each link's (from, to).
fn ends(links: &[Link]) -> Vec<(usize, usize)> {
    links.iter().map(|l| (l.from.0 as usize, l.to.0 as usize)).collect()
}

fn dense(n: usize, ends: &[(usize, usize)]) -> Vec<u32> {
    let incoming = incoming(n, ends);
    let mut routes = vec![NO_ROUTE; n * n];
    let mut search = Search::new(n);
    for dst in 0..n {
        search.run(dst, &incoming, ends, |u, li| routes[u * n + dst] = li);
    }
    routes
}

fn incoming(n: usize, ends: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &(_, to)) in ends.iter().enumerate() {
        incoming[to].push(i);
    }
    incoming
}

/// A breadth-first search over reversed links, reused across destinations.
struct Search {
    dist: Vec<u32>,
    queue: VecDeque<usize>,
}

impl Search {
    fn new(n: usize) -> Self {
        Search {
            dist: vec![u32::MAX; n],
            queue: VecDeque::new(),
        }
    }

    /// Calls `found(u, link)` for every node u that reaches `dst`, with the
    /// link u takes first.
    fn run(&mut self, dst: usize, incoming: &[Vec<usize>], ends: &[(usize, usize)], mut found: impl FnMut(usize, u32)) {
        self.dist.iter_mut().for_each(|d| *d = u32::MAX);
        self.dist[dst] = 0;
        self.queue.clear();
        self.queue.push_back(dst);
        while let Some(v) = self.queue.pop_front() {
            for &li in &incoming[v] {
                let u = ends[li].0;
                if self.dist[u] == u32::MAX {
                    self.dist[u] = self.dist[v] + 1;
                    found(u, li as u32);
                    self.queue.push_back(u);
                }
            }
        }
    }
}

/// The routing table: the egress link from any node towards any destination.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    n: usize,
    /// Per node: `Some((neighbour, link to it, link from it))` for a stub.
    stub: Vec<Option<(u32, u32, u32)>>,
    /// Per node: its column in `table`, for the nodes that are not stubs.
    column: Vec<u32>,
    /// table[column * n + node] = egress link from `node` towards the
    /// column's destination.
    table: Vec<u32>,
}

impl Routes {
    /// Shortest-hop routes over `links` among `n` nodes.
    pub fn new(n: usize, links: &[Link]) -> Self {
        Self::from_ends(n, &ends(links))
    }

    /// Routes over links given as (from, to) node indices.
    fn from_ends(n: usize, ends: &[(usize, usize)]) -> Self {
        let mut out_links: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, &(from, _)) in ends.iter().enumerate() {
            out_links[from].push(i);
        }
        let incoming = incoming(n, ends);
        let stub: Vec<Option<(u32, u32, u32)>> = (0..n)
            .map(|v| match (out_links[v].as_slice(), incoming[v].as_slice()) {
                ([o], [i]) if ends[*o].1 == ends[*i].0 && ends[*o].1 != v => {
                    Some((ends[*o].1 as u32, *o as u32, *i as u32))
                }
                _ => None,
            })
            .collect();
        // A stub whose neighbour is a stub too (two hosts joined by one link)
        // has no router to go through: route it as any other node.
        let stub: Vec<_> = stub
            .iter()
            .map(|s| s.filter(|&(nb, _, _)| stub[nb as usize].is_none()))
            .collect();
        let mut column = vec![NO_ROUTE; n];
        let mut table = Vec::new();
        let mut search = Search::new(n);
        for dst in (0..n).filter(|&v| stub[v].is_none()) {
            column[dst] = (table.len() / n.max(1)) as u32;
            let base = table.len();
            table.resize(base + n, NO_ROUTE);
            search.run(dst, &incoming, ends, |u, li| table[base + u] = li);
        }
        Routes { n, stub, column, table }
    }

    /// The egress link from `node` towards `dst` ([`NO_ROUTE`] if `dst` is
    /// unreachable or `node == dst`).
    #[inline(always)]
    pub fn next(&self, node: usize, dst: usize) -> u32 {
        if node == dst {
            return NO_ROUTE;
        }
        match self.stub[dst] {
            Some((nb, _, last)) => {
                if node == nb as usize {
                    last
                } else {
                    self.towards_column(node, nb as usize)
                }
            }
            None => self.towards_column(node, dst),
        }
    }

    #[inline]
    fn towards_column(&self, node: usize, dst: usize) -> u32 {
        if node == dst {
            return NO_ROUTE;
        }
        self.table[self.column[dst] as usize * self.n + node]
    }

    /// Entries held (for tests of the memory bound).
    pub fn entries(&self) -> usize {
        self.table.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{stream, uniform01};

    /// Duplex links, both directions of each edge in turn (as the builder makes them).
    fn graph(edges: &[(usize, usize)]) -> Vec<(usize, usize)> {
        edges.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect()
    }

    fn same_as_dense(n: usize, links: &[(usize, usize)]) {
        let dense = dense(n, links);
        let routes = Routes::from_ends(n, links);
        for node in 0..n {
            for dst in 0..n {
                assert_eq!(routes.next(node, dst), dense[node * n + dst], "{node} -> {dst}");
            }
        }
    }

    #[test]
    fn a_dumbbell_needs_two_searches() {
        // routers 0 and 1; pairs k: source 2 + 2k on 0, sink 3 + 2k on 1.
        let pairs = 50;
        let mut edges = vec![(0usize, 1usize)];
        for k in 0..pairs {
            edges.push((2 + 2 * k, 0));
            edges.push((1, 3 + 2 * k));
        }
        let n = 2 + 2 * pairs;
        let links = graph(&edges);
        same_as_dense(n, &links);
        assert_eq!(Routes::from_ends(n, &links).entries(), 2 * n);
    }

    #[test]
    fn random_graphs_route_as_the_dense_table() {
        let mut rng = stream(7, "routing");
        for case in 0..40 {
            let n = 2 + case % 12;
            let mut edges = Vec::new();
            for v in 1..n {
                // a random tree plus some extra links and a few multi-links
                let parent = (uniform01(&mut rng) * v as f64) as usize;
                edges.push((parent, v));
            }
            for _ in 0..case % 5 {
                let a = (uniform01(&mut rng) * n as f64) as usize;
                let b = (uniform01(&mut rng) * n as f64) as usize;
                if a != b {
                    edges.push((a, b));
                }
            }
            same_as_dense(n, &graph(&edges));
        }
        // Two hosts joined by one link, and an isolated node.
        same_as_dense(3, &graph(&[(0, 1)]));
    }
}

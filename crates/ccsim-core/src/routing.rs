//! Static shortest-path routing by hop count, computed once before the run.
//!
//! For every destination a breadth-first search runs over the reversed
//! links. Ties are broken deterministically: links are examined in the order
//! they were created, and the first link that reaches a node at its shortest
//! distance wins.

use crate::link::Link;
use std::collections::VecDeque;

/// routes[node * n + dst] = index of the egress link from `node` towards
/// `dst`, or u32::MAX when `dst` is unreachable (or `node == dst`).
pub fn shortest_paths(n: usize, links: &[Link]) -> Vec<u32> {
    let mut incoming: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, l) in links.iter().enumerate() {
        incoming[l.to.0 as usize].push(i);
    }
    let mut routes = vec![u32::MAX; n * n];
    let mut dist = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    for dst in 0..n {
        dist.iter_mut().for_each(|d| *d = u32::MAX);
        dist[dst] = 0;
        queue.clear();
        queue.push_back(dst);
        while let Some(v) = queue.pop_front() {
            for &li in &incoming[v] {
                let u = links[li].from.0 as usize;
                if dist[u] == u32::MAX {
                    dist[u] = dist[v] + 1;
                    routes[u * n + dst] = li as u32;
                    queue.push_back(u);
                }
            }
        }
    }
    routes
}

//! Kathleen Nichols' windowed max filter (Linux `lib/win_minmax.c`), shared
//! by BBR v1 ([`super::bbr`], bandwidth over 10 rounds) and BBR v3
//! ([`super::bbr3`], bandwidth over 2 ProbeBW cycles, draft-ietf-ccwg-bbr-06
//! section 5.5.5; ACK aggregation over 10 rounds, section 5.5.9).

/// The best, second and third best samples of the window, each with the
/// (virtual) time it was taken.
#[derive(Copy, Clone, Debug, Default)]
pub struct MaxFilter {
    s: [(u64, f64); 3],
}

impl MaxFilter {
    /// The current maximum.
    pub fn get(&self) -> f64 {
        self.s[0].1
    }

    fn reset(&mut self, t: u64, v: f64) -> f64 {
        self.s = [(t, v); 3];
        v
    }

    /// `minmax_running_max`: add sample `v` at time `t` for a window `win`.
    pub fn update(&mut self, win: u64, t: u64, v: f64) -> f64 {
        if v >= self.s[0].1 || t.saturating_sub(self.s[2].0) > win {
            return self.reset(t, v);
        }
        if v >= self.s[1].1 {
            self.s[2] = (t, v);
            self.s[1] = (t, v);
        } else if v >= self.s[2].1 {
            self.s[2] = (t, v);
        }
        // minmax_subwin_update
        let dt = t.saturating_sub(self.s[0].0);
        if dt > win {
            self.s[0] = self.s[1];
            self.s[1] = self.s[2];
            self.s[2] = (t, v);
            if t.saturating_sub(self.s[0].0) > win {
                self.s[0] = self.s[1];
                self.s[1] = self.s[2];
                self.s[2] = (t, v);
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[2] = (t, v);
            self.s[1] = (t, v);
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = (t, v);
        }
        self.s[0].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_filter_windows() {
        let mut f = MaxFilter::default();
        f.update(10, 0, 5.0);
        f.update(10, 1, 3.0);
        assert_eq!(f.get(), 5.0);
        f.update(10, 2, 7.0);
        assert_eq!(f.get(), 7.0);
        // 7 ages out after 10 rounds; the later, smaller samples take over.
        for t in 3..=12 {
            f.update(10, t, 4.0);
        }
        assert_eq!(f.get(), 7.0);
        f.update(10, 13, 4.0);
        assert_eq!(f.get(), 4.0);
    }
}

// lonerun: lonelybot's solver (its library, unchanged: `solver::solve_with_tracking`, the
// search its own `lonecli solve` and `lonecli rate` run) on deals read from stdin, for
// benchmarks/bench_lonelybot.py.
//
// stdin, one deal a line:  LABEL DRAW SEED [SECONDS]
//   SEED is lonelybot's "exact" seed (`shuffler::exact_shuffle`: a number below 52! naming a
//   permutation; bench_lonelybot.py computes it from a harpsolve layout), SECONDS a time limit
//   (0 or absent: none).
// stdout, one line a deal:  LABEL STATUS STATES MS
//   STATUS solved | unsolvable | unknown (the time limit) | crashed; STATES the unique states
//   the search entered; MS the search's own time, the deal's setting-up excluded.
//
// Each deal runs in a thread of its own with a large stack, as lonecli does: the search is
// recursive.
use lonelybot::shuffler::{exact_shuffle, U256};
use lonelybot::solver::{solve_with_tracking, SearchResult};
use lonelybot::state::Solitaire;
use lonelybot::tracking::{SearchStatistics, TerminateSignal};
use std::cell::Cell;
use std::io::{self, BufRead, Write};
use std::num::NonZeroU8;
use std::time::{Duration, Instant};

const STACK: usize = 64 * 1024 * 1024;

struct Count {
    unique: Cell<u64>,
    deadline: Option<Instant>,
    polls: Cell<u32>,
    over: Cell<bool>,
}

impl SearchStatistics for Count {
    fn hit_a_state(&self, _: usize) {}
    fn hit_unique_state(&self, _: usize, _: u32) {
        self.unique.set(self.unique.get() + 1);
    }
    fn finish_move(&self, _: usize) {}
}

impl TerminateSignal for Count {
    fn is_terminated(&self) -> bool {
        if self.over.get() {
            return true;
        }
        if let Some(d) = self.deadline {
            // the clock is read once every 4 096 polls: a poll comes every state or so
            let p = self.polls.get().wrapping_add(1);
            self.polls.set(p);
            if p % 4096 == 0 && Instant::now() > d {
                self.over.set(true);
                return true;
            }
        }
        false
    }
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout();
    for line in stdin.lock().lines() {
        let line = line.expect("stdin");
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.len() < 3 {
            continue;
        }
        let label = f[0].to_string();
        let draw = NonZeroU8::new(f[1].parse::<u8>().expect("DRAW")).expect("DRAW >= 1");
        let seed = U256::from_dec_str(f[2]).expect("SEED");
        let limit: f64 = if f.len() > 3 { f[3].parse().expect("SECONDS") } else { 0.0 };
        let deck = exact_shuffle(seed).expect("SEED below 52!");
        let child = std::thread::Builder::new()
            .stack_size(STACK)
            .spawn(move || {
                let mut g = Solitaire::new(&deck, draw);
                let c = Count {
                    unique: Cell::new(0),
                    deadline: if limit > 0.0 { Some(Instant::now() + Duration::from_secs_f64(limit)) } else { None },
                    polls: Cell::new(0),
                    over: Cell::new(false),
                };
                let t = Instant::now();
                let (res, _) = solve_with_tracking(&mut g, &c, &c);
                (res, c.unique.get(), t.elapsed().as_secs_f64() * 1000.0)
            })
            .expect("thread");
        let (res, unique, ms) = child.join().unwrap_or((SearchResult::Crashed, 0, 0.0));
        let st = match res {
            SearchResult::Solved => "solved",
            SearchResult::Unsolvable => "unsolvable",
            SearchResult::Terminated => "unknown",
            SearchResult::Crashed => "crashed",
        };
        writeln!(out, "{label} {st} {unique} {ms:.4}").expect("stdout");
        out.flush().expect("stdout");
    }
}

//! The projection model's validation study (docs/projection.md): generated populations with a
//! known truth, sampled at 0.5 %, 2 % and 10 %, and how often each range holds the truth; then
//! representative slices (`--sample slice`) of whole entities from four size distributions.
//!
//! `cargo run --release --example validate_projection [population_docs] [replicates]`

use pkadvisor::estimate::slice::{self, Entities};
use pkadvisor::estimate::validation::{study, Population};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(400_000);
    let reps: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    println!("population of {n} documents, {reps} uniform samples per row\n");
    println!("| population | rate | true distinct | distinct range holds truth | median high/low | median point/truth | true largest (docs) | largest-partition range holds truth |");
    println!("|---|---|---|---|---|---|---|---|");
    for pop in Population::ALL {
        for rate in [0.005, 0.02, 0.10] {
            let r = study(pop, n, rate, reps, 42);
            println!(
                "| {} | {:.1}% | {} | {:.0}% | {:.2} | {:.2} | {} | {:.0}% |",
                pop.name(),
                rate * 100.0,
                r.true_distinct,
                r.distinct_coverage * 100.0,
                r.distinct_width,
                r.point_ratio,
                r.true_max,
                r.max_coverage * 100.0
            );
        }
    }
    println!("\nrepresentative slices: whole entities, production `growth` times as many, {reps} replicates per row\n");
    println!("| entity sizes | slice keys | growth | largest: [slice's, 95% bound] holds truth | median point/truth | median bound/truth | key-count range holds truth |");
    println!("|---|---|---|---|---|---|---|");
    for e in Entities::ALL {
        for (keys, growth) in [(100, 1000), (200, 1000), (1000, 100), (1000, 1000)] {
            let r = slice::study(e, keys, growth, reps, 42);
            println!(
                "| {:?} | {keys} | {growth} | {:.0}% | {:.2} | {:.2} | {:.0}% |",
                e,
                r.max_coverage * 100.0,
                r.max_point_ratio,
                r.max_high_ratio,
                r.distinct_coverage * 100.0
            );
        }
    }
}

//! The progress bar: indicatif on stderr, hidden when stderr is not a terminal, with `--quiet`,
//! or for inputs that finish in a moment (it only appears after a short delay).

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A byte-based progress bar over all inputs (a spinner when the total is unknown, e.g. stdin).
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Creates the bar; `enabled` is false for `--quiet`. `total_bytes` is the sum of the input
    /// files' sizes on disk (compressed sizes for compressed inputs).
    pub fn new(enabled: bool, total_bytes: Option<u64>) -> Progress {
        if !enabled || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = match total_bytes {
            Some(t) => ProgressBar::with_draw_target(Some(t), ProgressDrawTarget::stderr())
                .with_style(
                    ProgressStyle::with_template(
                        "{spinner} reading {decimal_bytes}/{decimal_total_bytes} [{bar:30}] {decimal_bytes_per_sec}, {eta} left",
                    )
                    .expect("valid template")
                    .progress_chars("=> "),
                ),
            None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template("{spinner} reading {decimal_bytes} ({decimal_bytes_per_sec})")
                    .expect("valid template"),
            ),
        };
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress { bar: Some(bar) }
    }

    /// Sets the bytes read so far.
    pub fn set(&self, bytes: u64) {
        if let Some(b) = &self.bar {
            b.set_position(bytes);
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

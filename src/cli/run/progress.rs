//! The progress bar of `bemula run` on a terminal.

use crate::run::{RunEvent, RunSink};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar on a terminal (questions answered, instances done, elapsed); silent
/// otherwise.
pub(super) struct Bar {
    bar: Option<ProgressBar>,
    instances: usize,
    done: std::sync::atomic::AtomicUsize,
}

impl Bar {
    pub(super) fn new(name: &str, questions: usize, instances: usize) -> Bar {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(questions as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:>14} [{elapsed_precise}] {bar:30} {pos}/{len} questions, {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_prefix(crate::terminal::inline(name).into_owned());
            bar.set_message(format!("0/{instances} instances"));
            bar
        });
        Bar {
            bar,
            instances,
            done: Default::default(),
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl RunSink for Bar {
    fn on(&self, event: &RunEvent<'_>) {
        match event {
            RunEvent::QuestionJudged { .. } => {
                if let Some(bar) = &self.bar {
                    bar.inc(1);
                }
            }
            RunEvent::InstanceDone { .. } => {
                let done = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if let Some(bar) = &self.bar {
                    bar.set_message(format!("{done}/{} instances", self.instances));
                }
            }
            _ => {}
        }
    }
}

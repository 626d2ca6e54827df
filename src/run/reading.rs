//! The reading pool: the threads that answer and judge replies when the answerer and the
//! judge do their work on this machine's CPU (the oracle or extractive reader, the rule
//! judge), with nothing to wait for.
//!
//! A pass's calls to the system are sequential, so a run against a slow system is as
//! long as its longest pass: every moment a pass's next call waits for a core counts.
//! Answering and judging on the runtime's own threads made those waits longer (a call
//! that had come back queued behind the readers' work: at 2 ms a call, each call of the
//! longest pass lasted about 2.5 ms). On the pool they run on threads of their own at a
//! lower scheduling priority (`nice` +[`DEFAULT_NICE`] on Linux, where a thread has a
//! priority of its own; `BEMULA_READING_NICE` sets it, 0 for none), so the passes'
//! threads take a core the moment they have work: the same run's calls then last about
//! 2.2 ms, as when nothing else runs (`cargo bench --bench latency`).
//!
//! An answerer or judge that calls a model stays on the runtime: a pool thread would
//! sit idle through every call.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::task::JoinHandle;

/// The scheduling priority of the pool's threads (Linux's `nice`, 0–19): low enough that
/// a pass's thread takes a core before them, not so low that other processes of a busy
/// machine starve them.
pub const DEFAULT_NICE: i32 = 10;

type Job = Box<dyn FnOnce() + Send>;

/// The process's pool: one thread per core, started on first use.
struct Pool {
    jobs: Mutex<Sender<Job>>,
}

fn pool() -> Option<&'static Pool> {
    static POOL: OnceLock<Option<Pool>> = OnceLock::new();
    POOL.get_or_init(start).as_ref()
}

/// The pool, or `None` when its threads cannot be started (the work then stays on the
/// runtime, as without a pool).
fn start() -> Option<Pool> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let nice = nice_from(std::env::var("BEMULA_READING_NICE").ok().as_deref());
    let (sender, receiver) = channel::<Job>();
    let receiver = Arc::new(Mutex::new(receiver));
    for index in 0..threads {
        let receiver = receiver.clone();
        let started = std::thread::Builder::new()
            .name(format!("bemula-reader-{index}"))
            .spawn(move || {
                lower_priority(nice);
                loop {
                    // The lock is held only while waiting for the next job.
                    let job = match receiver.lock() {
                        Ok(receiver) => receiver.recv(),
                        Err(_) => return,
                    };
                    match job {
                        Ok(job) => job(),
                        Err(_) => return,
                    }
                }
            });
        if started.is_err() && index == 0 {
            return None;
        }
    }
    Some(Pool {
        jobs: Mutex::new(sender),
    })
}

/// The priority asked by `BEMULA_READING_NICE` (clamped to 0–19), or [`DEFAULT_NICE`].
fn nice_from(value: Option<&str>) -> i32 {
    value
        .and_then(|v| v.trim().parse::<i32>().ok())
        .map_or(DEFAULT_NICE, |n| n.clamp(0, 19))
}

/// Lowers the calling thread's priority to `nice` (Linux: a thread's own; elsewhere the
/// call would change the whole process's, so nothing is done).
fn lower_priority(nice: i32) {
    #[cfg(target_os = "linux")]
    if nice > 0 {
        // SAFETY: `gettid` has no preconditions; `setpriority` on the calling thread's
        // id changes only that thread, and a failure (an unprivileged process may not
        // lower a priority it raised) leaves it as it was.
        unsafe {
            let tid = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
}

/// Runs `work` to completion on the reading pool (inside the runtime of the caller, so
/// `tokio`'s types work in it) and returns a handle to await its output like a task's.
/// A panic in `work` reaches the handle as a task's panic would. Without a pool (its
/// threads could not start) `work` is spawned on the runtime.
pub(crate) fn spawn<F>(work: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let Some(pool) = pool() else {
        return tokio::spawn(work);
    };
    let (done, output) = tokio::sync::oneshot::channel::<Result<F::Output, Box<dyn Any + Send>>>();
    let runtime = tokio::runtime::Handle::current();
    let job: Job = Box::new(move || {
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| runtime.block_on(work)));
        // The handle may have been dropped (its run stopped): the output is not wanted.
        let _ = done.send(result);
    });
    let sent = pool
        .jobs
        .lock()
        .map_err(|_| ())
        .and_then(|jobs| jobs.send(job).map_err(|_| ()));
    tokio::spawn(async move {
        if sent.is_err() {
            panic!("the reading pool is gone");
        }
        match output.await {
            Ok(Ok(output)) => output,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            Err(_) => panic!("the reading pool dropped a reply"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_priority_is_read_from_the_setting_and_kept_in_range() {
        assert_eq!(nice_from(None), DEFAULT_NICE);
        assert_eq!(nice_from(Some("0")), 0);
        assert_eq!(nice_from(Some(" 5 ")), 5);
        assert_eq!(nice_from(Some("40")), 19);
        assert_eq!(nice_from(Some("-3")), 0);
        assert_eq!(nice_from(Some("low")), DEFAULT_NICE);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn work_runs_off_the_runtime_and_its_output_comes_back() {
        let outputs: Vec<_> = (0..64)
            .map(|i| {
                spawn(async move {
                    // Tokio's types work inside: the job runs within the caller's runtime.
                    let (tx, rx) = tokio::sync::oneshot::channel();
                    tx.send(i * 2).unwrap();
                    let name = std::thread::current().name().map(str::to_string);
                    (rx.await.unwrap(), name)
                })
            })
            .collect();
        for (i, handle) in outputs.into_iter().enumerate() {
            let (value, thread) = handle.await.expect("no panic");
            assert_eq!(value, i * 2);
            let thread = thread.expect("a named thread");
            assert!(thread.starts_with("bemula-reader-"), "ran on {thread}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panic_reaches_the_handle_and_the_pool_goes_on() {
        let failed = spawn(async { panic!("reader failed") }).await;
        let err = failed.expect_err("the panic is the task's");
        assert!(err.is_panic());
        let message = err.into_panic();
        assert_eq!(message.downcast_ref::<&str>(), Some(&"reader failed"));
        // Every thread of the pool is still there to take work.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        for _ in 0..threads * 4 {
            assert_eq!(spawn(async { 7 }).await.expect("no panic"), 7);
        }
    }

    #[cfg(target_os = "linux")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_pool_runs_at_a_lower_priority() {
        if std::env::var_os("BEMULA_READING_NICE").is_some() {
            return;
        }
        let nice = spawn(async {
            // SAFETY: reads the calling thread's priority; errno is not consulted
            // because the values asked of the pool are never -1.
            unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
        })
        .await
        .expect("no panic");
        // SAFETY: as above, for the test's own thread.
        let own = unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) };
        assert!(nice >= own.max(0), "pool {nice}, test thread {own}");
        if own <= 0 {
            assert_eq!(nice, DEFAULT_NICE);
        }
    }
}

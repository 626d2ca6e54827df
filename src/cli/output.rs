//! A closed standard output (`bemula test | head`) ends a command quietly: the
//! command runs to its end, writes its reports, and exits with its own status, with no
//! panic message.
//!
//! On Unix, when standard output is not a terminal, [`StdoutGuard::install`] puts a
//! pipe in front of it for the length of the command and copies everything written to
//! the pipe on to the real standard output. When the reader goes away, the copying
//! stops and the rest is discarded, so no write in the program (ours or a library's,
//! such as the test harness's) ever sees the broken pipe. Elsewhere the guard does
//! nothing.

/// Holds standard output for the length of a command; [`StdoutGuard::finish`] puts it
/// back.
pub struct StdoutGuard {
    #[cfg(unix)]
    inner: Option<unix::Forwarder>,
}

impl StdoutGuard {
    /// Interposes the pipe when standard output is not a terminal (Unix only).
    pub fn install() -> StdoutGuard {
        #[cfg(unix)]
        {
            use std::io::IsTerminal;
            let inner = if std::io::stdout().is_terminal() {
                None
            } else {
                unix::Forwarder::start()
            };
            StdoutGuard { inner }
        }
        #[cfg(not(unix))]
        StdoutGuard {}
    }

    /// Flushes what was written, restores standard output, and says whether the
    /// reader closed it before the end.
    pub fn finish(self) -> bool {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        #[cfg(unix)]
        if let Some(inner) = self.inner {
            return inner.finish();
        }
        false
    }
}

#[cfg(unix)]
mod unix {
    use std::fs::File;
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::mpsc;
    use std::time::Duration;

    const STDOUT: RawFd = 1;

    pub(super) struct Forwarder {
        /// The real standard output, to put back at the end.
        saved: OwnedFd,
        closed: Arc<AtomicBool>,
        drained: mpsc::Receiver<()>,
    }

    /// A new descriptor for `fd` that child processes do not inherit.
    fn dup_cloexec(fd: RawFd) -> Option<OwnedFd> {
        // SAFETY: fcntl with F_DUPFD_CLOEXEC only creates a new descriptor; a failure
        // is reported as -1 and checked.
        let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
        // SAFETY: `new` is a fresh descriptor that nothing else owns.
        (new >= 0).then(|| unsafe { OwnedFd::from_raw_fd(new) })
    }

    impl Forwarder {
        pub(super) fn start() -> Option<Forwarder> {
            let saved = dup_cloexec(STDOUT)?;
            let target = dup_cloexec(STDOUT)?;
            let mut fds = [0 as libc::c_int; 2];
            // SAFETY: `fds` has room for the two descriptors pipe writes.
            if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
                return None;
            }
            // SAFETY: both descriptors were just created by pipe and are owned here.
            let (read, write) =
                unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
            for fd in [&read, &write] {
                // SAFETY: setting the close-on-exec flag of a descriptor we own.
                unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, libc::FD_CLOEXEC) };
            }
            // SAFETY: dup2 replaces descriptor 1 by the pipe's write end; the Rust
            // standard output handle writes to descriptor 1 and keeps no other state.
            if unsafe { libc::dup2(write.as_raw_fd(), STDOUT) } < 0 {
                return None;
            }
            drop(write);
            let closed = Arc::new(AtomicBool::new(false));
            let (done, drained) = mpsc::channel();
            let flag = Arc::clone(&closed);
            std::thread::Builder::new()
                .name("bemula-stdout".into())
                .spawn(move || {
                    let mut read = File::from(read);
                    let mut target = File::from(target);
                    let mut buf = vec![0u8; 64 * 1024];
                    loop {
                        match read.read(&mut buf) {
                            Ok(0) => break,
                            Ok(n) => {
                                if !flag.load(Ordering::Relaxed)
                                    && target.write_all(&buf[..n]).is_err()
                                {
                                    // The reader is gone: discard the rest.
                                    flag.store(true, Ordering::Relaxed);
                                }
                            }
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            Err(_) => break,
                        }
                    }
                    let _ = done.send(());
                })
                .ok()?;
            Some(Forwarder {
                saved,
                closed,
                drained,
            })
        }

        pub(super) fn finish(self) -> bool {
            // SAFETY: puts the saved standard output back on descriptor 1, which
            // closes the pipe's write end there; the copying thread then reads to the
            // end of the pipe and stops.
            unsafe { libc::dup2(self.saved.as_raw_fd(), STDOUT) };
            // A child process that inherited the pipe could keep it open: wait a
            // bounded time only.
            let _ = self.drained.recv_timeout(Duration::from_secs(5));
            self.closed.load(Ordering::Relaxed)
        }
    }
}

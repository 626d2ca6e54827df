//! Pools of adapter processes: each namespace leased to one process for its whole pass,
//! and the figures of each process.

use super::*;

/// The adapter processes behind one factory (one, unless a pool was asked for) and the
/// process that serves each namespace.
pub(super) struct Pool {
    pub(super) members: Vec<Arc<Client>>,
    pub(super) assigned: Mutex<Assignment>,
    /// Handles alive per member ([`Lease`]s): a new namespace goes to the least busy.
    pub(super) live: Vec<AtomicUsize>,
}

/// Which member serves each namespace: fixed at the namespace's first call, for the
/// whole run, so its state stays in one process (a restarted pass comes back to it).
#[derive(Default)]
pub(super) struct Assignment {
    pub(super) by_namespace: HashMap<String, usize>,
    pub(super) namespaces: Vec<usize>,
}

impl Pool {
    pub(super) fn new(members: Vec<Arc<Client>>) -> Pool {
        let n = members.len();
        Pool {
            members,
            assigned: Mutex::new(Assignment {
                by_namespace: HashMap::new(),
                namespaces: vec![0; n],
            }),
            live: (0..n).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    pub(super) fn first(&self) -> &Arc<Client> {
        &self.members[0]
    }

    /// The member serving `namespace`; a namespace seen for the first time goes to the
    /// member with the fewest handles alive, then the fewest namespaces, then the first.
    pub(super) fn member_for(&self, namespace: &str) -> usize {
        if self.members.len() == 1 {
            return 0;
        }
        let mut assigned = self
            .assigned
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&index) = assigned.by_namespace.get(namespace) {
            return index;
        }
        let index = (0..self.members.len())
            .min_by_key(|&i| {
                (
                    self.live[i].load(Ordering::Relaxed),
                    assigned.namespaces[i],
                    i,
                )
            })
            .unwrap_or(0);
        assigned.namespaces[index] += 1;
        assigned.by_namespace.insert(namespace.to_string(), index);
        index
    }
}

/// A namespace's hold on its pool member while its handle is alive.
pub(super) struct Lease {
    pub(super) pool: Arc<Pool>,
    pub(super) index: usize,
}

impl Lease {
    pub(super) fn new(pool: Arc<Pool>, index: usize) -> Lease {
        pool.live[index].fetch_add(1, Ordering::Relaxed);
        Lease { pool, index }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.pool.live[self.index].fetch_sub(1, Ordering::Relaxed);
    }
}

/// What one process of an adapter did in a run ([`RemoteFactory::process_stats`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct ProcessStats {
    /// Its place in the pool, from 1 (the `BEMULA_ADAPTER_PROCESS` it was started with).
    pub process: usize,
    /// The namespaces it served (the preflight's canary namespaces included).
    pub namespaces: usize,
    /// The calls sent to it.
    pub calls: u64,
    /// How many times it was restarted after a crash.
    pub restarts: u32,
}

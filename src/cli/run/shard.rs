//! `--shard I/N`: one part of a run's instances, for runs split across machines.

/// One shard of a run: `I/N`, 1-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, 1..=count.
    pub index: usize,
    /// Number of shards.
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?}: expected I/N with 1 <= I <= N, e.g. 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Shard {
    /// The instances of this shard, in dataset order. Instances are dealt largest first
    /// (by turns and questions, ties by id) to the shard with the least work so far, so
    /// shards are balanced and every shard count partitions the dataset exactly.
    pub fn select(&self, instances: &[crate::dataset::Instance]) -> Vec<crate::dataset::Instance> {
        let size = |i: &crate::dataset::Instance| {
            i.sessions.iter().map(|s| s.turns.len()).sum::<usize>() + 10 * i.questions.len()
        };
        let mut order: Vec<usize> = (0..instances.len()).collect();
        order.sort_by(|&a, &b| {
            size(&instances[b])
                .cmp(&size(&instances[a]))
                .then_with(|| instances[a].id.cmp(&instances[b].id))
        });
        let mut load = vec![0usize; self.count];
        let mut mine = vec![false; instances.len()];
        for index in order {
            let shard = (0..self.count).min_by_key(|&s| (load[s], s)).unwrap_or(0);
            load[shard] += size(&instances[index]);
            mine[index] = shard + 1 == self.index;
        }
        instances
            .iter()
            .zip(mine)
            .filter(|(_, m)| *m)
            .map(|(i, _)| i.clone())
            .collect()
    }
}

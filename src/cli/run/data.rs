//! The data of `bemula run`: the realised Lite by default, the generated set when a
//! generator setting is given, or a directory.

use super::Args;
use crate::dataset::Dataset;
use crate::generate;

pub(super) fn load_dataset(
    args: &Args,
) -> Result<(Dataset, Option<u64>), Box<dyn std::error::Error>> {
    let generated = args.full || args.seed.is_some() || args.gen_args.given();
    match &args.data {
        Some(dir) if dir.as_os_str() == crate::dataset::GENERATED && !dir.exists() => {
            generated_dataset(args)
        }
        None if generated => generated_dataset(args),
        None => Ok((crate::dataset::realised::load()?, None)),
        Some(dir) => {
            let dataset = Dataset::open(dir)?;
            if !args.full && dataset.instances.iter().any(|i| !i.tier.is_lite()) {
                eprintln!(
                    "bemula: using the short and medium instances (Bemula-Lite); pass --full for all"
                );
            }
            Ok((dataset.default_tiers(args.full), None))
        }
    }
}

fn generated_dataset(args: &Args) -> Result<(Dataset, Option<u64>), Box<dyn std::error::Error>> {
    let seed = args.seed.unwrap_or(generate::DEFAULT_SEED);
    let dataset = generate::generate(&args.gen_args.config(seed, !args.full)?);
    Ok((dataset, Some(seed)))
}

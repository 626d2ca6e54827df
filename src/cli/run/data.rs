//! The data of `bemula run`: the realised Lite by default, the generated set when a
//! generator setting is given, or a directory.

use super::Args;
use crate::generate;
use crate::run::DataSource;

/// The data source the flags name.
pub(super) fn data_source(args: &Args) -> Result<DataSource, String> {
    let generated = args.full || args.seed.is_some() || args.gen_args.given();
    match &args.data {
        Some(dir) if dir.as_os_str() == crate::dataset::GENERATED && !dir.exists() => {
            generated_source(args)
        }
        None if generated => generated_source(args),
        None => Ok(DataSource::Realised),
        Some(dir) => Ok(DataSource::Dir(dir.clone())),
    }
}

fn generated_source(args: &Args) -> Result<DataSource, String> {
    let seed = args.seed.unwrap_or(generate::DEFAULT_SEED);
    let config = args.gen_args.config(seed, !args.full)?;
    Ok(DataSource::Generated {
        seed,
        full: args.full,
        generator: config.generator,
        phrasing: config.phrasing,
    })
}

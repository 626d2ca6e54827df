//! The `bemula` command: parses arguments and calls the library.

fn main() -> std::process::ExitCode {
    bemula::cli::main()
}

//! `arena man`: the manual page, rendered from the clap definitions (the same
//! doc comments `--help` prints), so the page and the command line cannot differ.

use anyhow::Context as _;
use clap::CommandFactory as _;

use crate::cli::{Cli, ManArgs};
use crate::exit_codes::{self, Code};

/// Prints arena.1, or writes a page per visible command into `--out-dir`.
///
/// # Errors
/// The directory cannot be made or a page cannot be written (naming the path).
pub fn run(args: &ManArgs) -> anyhow::Result<Code> {
    let command = Cli::command();
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("making the directory {}", dir.display()))?;
        clap_mangen::generate_to(command, dir)
            .with_context(|| format!("writing the manual pages into {}", dir.display()))?;
        crate::say!(
            "wrote arena.1 and a page per command into {} (read one with `man -l {}/arena.1`)",
            dir.display(),
            dir.display()
        );
        return Ok(exit_codes::OK);
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut page)
        .context("rendering the manual page")?;
    crate::stdout::write_data(&String::from_utf8_lossy(&page));
    Ok(if crate::stdout::is_closed() {
        exit_codes::CLOSED_OUTPUT
    } else {
        exit_codes::OK
    })
}

//! The scaling recipes in configs/cluster/ run for real and give the single-machine
//! result: the Slurm job array on a single-node Slurm cluster started by the test
//! (munged, slurmctld and slurmd as child processes), the GNU parallel script on this
//! host (`-S :`), and the Kubernetes Indexed Job's container command, run once per
//! completion index with the manifest's environment (Kubernetes itself is not
//! exercised). The guide (docs/guide/scale-out.md) shows the recipes as they are in the files.
//!
//! Each run merges its shards with `arena ratings` and must equal one
//! `arena tournament` of the same file and seed: the same games (ids, rounds, pairs,
//! colours, openings, results, seeds; everything but the timing column) and the same
//! standings and crosstable, byte for byte.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use uttt_tests::slurm::{self, Cluster, StartError, TAG_VAR};
use uttt_tests::{Row, Tag, arena, arena_bin, read_csv, repo_root};
use yaml_rust2::{Yaml, YamlLoader};

/// The seed every run of a test uses.
const SEED: &str = "2027";

/// A recipe under configs/cluster/.
fn recipe(name: &str) -> PathBuf {
    repo_root().join("configs").join("cluster").join(name)
}

/// Four instant bots, 4 games per pairing: 24 games in 12 colour-swapped pairs, so
/// every one of 4 (or 8) shards has games. Each bot's environment carries `tag`, so a
/// bot left running would be found.
fn write_config(path: &Path, tag: &str) {
    let bot = |name: &str, command: &str| {
        format!(
            "[[bot]]\nname = \"{name}\"\ncommand = \"{command}\"\nenv = {{ {TAG_VAR} = \"{tag}\" }}\n"
        )
    };
    let text = format!(
        "name = \"cluster\"\ngames = 4\n[time]\nmove-ms = 1000\n[openings]\nrandom-plies = 2\n{}{}{}{}",
        bot("random", "random"),
        bot("greedy", "greedy"),
        bot("random-b", "random"),
        bot("greedy-b", "greedy"),
    );
    std::fs::write(path, text).expect("write the tournament file");
}

/// `arena tournament CONFIG --seed SEED --out OUT --quiet` on this machine alone.
fn single_run(config: &Path, out: &Path) {
    let run = Command::new(arena_bin())
        .arg("tournament")
        .arg(config)
        .args(["--seed", SEED, "--quiet", "--concurrency", "2", "--out"])
        .arg(out)
        .output()
        .expect("running arena");
    assert_eq!(
        run.status.code(),
        Some(0),
        "single run: {}",
        String::from_utf8_lossy(&run.stderr)
    );
}

/// games.csv rows of `files`, sorted by id, without the timing column.
fn games_of(files: &[PathBuf]) -> Vec<Row> {
    let mut rows: Vec<Row> = files.iter().flat_map(|f| read_csv(f)).collect();
    for row in &mut rows {
        row.remove("duration_ms");
    }
    rows.sort_by(|a, b| a["id"].cmp(&b["id"]));
    rows
}

/// `arena ratings SHARD/games.csv… --out MERGED`, then: every shard played some games,
/// the shards' games are the single run's, and the merged standings and crosstable
/// are the single run's, byte for byte.
#[track_caller]
fn assert_merges_into_single_run(shards: &[PathBuf], merged: &Path, single: &Path, context: &str) {
    let files: Vec<PathBuf> = shards.iter().map(|s| s.join("games.csv")).collect();
    for file in &files {
        assert!(
            !read_csv(file).is_empty(),
            "{} has no games\n{context}",
            file.display()
        );
    }
    let mut args: Vec<String> = vec!["ratings".into()];
    args.extend(files.iter().map(|f| f.to_string_lossy().into_owned()));
    args.extend(["--out".into(), merged.to_string_lossy().into_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = arena(&args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "arena ratings: {}\n{context}",
        String::from_utf8_lossy(&out.stderr)
    );
    let single_games = games_of(&[single.join("games.csv")]);
    assert_eq!(
        single_games.len(),
        24,
        "the single run played the whole schedule"
    );
    assert_eq!(
        games_of(&files),
        single_games,
        "the shards' games are the single run's\n{context}"
    );
    for table in ["standings.csv", "crosstable.csv"] {
        let read = |dir: &Path| std::fs::read_to_string(dir.join(table)).unwrap_or_default();
        assert!(!read(single).is_empty(), "the single run wrote {table}");
        assert_eq!(
            read(merged),
            read(single),
            "merged {table} equals the single run's\n{context}"
        );
    }
}

/// Waits (briefly) until no live process carries `TAG_VAR=tag`; fails naming them.
#[track_caller]
fn assert_no_process_tagged(tag: &str) {
    let entry = format!("{TAG_VAR}={tag}");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let left = slurm::processes_with_env(&entry);
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "processes left behind: {left:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
#[cfg_attr(
    not(has_slurm),
    ignore = "needs Slurm and munge for a single-node cluster: apt-get install slurm-wlm munge"
)]
#[cfg_attr(
    all(has_slurm, not(as_root)),
    ignore = "needs root: slurmd starts jobs only as root"
)]
fn a_slurm_job_array_of_four_shards_merges_into_the_single_machine_run() {
    let cluster = cluster();
    let work = tempfile::tempdir().expect("temp dir");
    let config = work.path().join("cluster.toml");
    write_config(&config, cluster.tag());
    let single = work.path().join("single");
    single_run(&config, &single);

    let results = work.path().join("results");
    let env = shard_env(&config, &results);
    let fail = |e: String| -> ! { panic!("{e}\n{}", cluster.logs()) };
    let job = cluster
        .sbatch(
            &recipe("slurm-array.sbatch"),
            &["--array=1-4"],
            &env,
            work.path(),
        )
        .unwrap_or_else(|e| fail(e));
    let tasks = cluster.wait_for_array(job, 4).unwrap_or_else(|e| fail(e));

    // What each task printed (the script's --output), for the messages below.
    let output = |k: u32| {
        std::fs::read_to_string(work.path().join(format!("slurm-{job}_{k}.out")))
            .unwrap_or_else(|e| format!("(no output file: {e})"))
    };
    let outputs: String = (1..=4)
        .map(|k| format!("---- task {k}:\n{}", output(k)))
        .collect();
    for (task, k) in tasks.iter().zip(1..=4) {
        assert_eq!(task.index(), Some(k), "{tasks:?}");
        assert_eq!(
            (task.state.as_str(), task.exit_code.as_str()),
            ("COMPLETED", "0:0"),
            "task {k}: {task:?}\n{outputs}\n{}",
            cluster.logs()
        );
        // The task ran the arena on its own shard, as the script says.
        assert!(
            output(k).contains(&format!("in shard {k}/4")),
            "task {k} played shard {k}/4\n{outputs}"
        );
    }
    let shards: Vec<PathBuf> = (1..=4)
        .map(|k| results.join(format!("shard-{k}")))
        .collect();
    assert_merges_into_single_run(&shards, &work.path().join("merged"), &single, &outputs);

    // The daemons stop, and nothing of the cluster (slurmstepd, a job, a bot) is left.
    cluster.shutdown().unwrap_or_else(|e| panic!("{e}"));
}

/// The environment of slurm-array.sbatch: this build, `config`, the tests' seed,
/// shards under `results`.
fn shard_env(config: &Path, results: &Path) -> Vec<(&'static str, OsString)> {
    vec![
        ("ARENA", arena_bin().into()),
        ("ARENA_CONFIG", config.into()),
        ("ARENA_SEED", SEED.into()),
        ("ARENA_OUT", results.into()),
    ]
}

/// Starts a single-node cluster. The tests that call this are ignored where
/// `tests/build.rs` found no Slurm or no root, so a cluster that cannot be had here
/// fails the test.
fn cluster() -> Cluster {
    match Cluster::start() {
        Ok(cluster) => cluster,
        Err(StartError::Unavailable(why)) => panic!(
            "no single-node Slurm cluster here, although there was when this test was built: {why}"
        ),
        Err(StartError::Failed(message)) => panic!("{message}"),
    }
}

/// Schedulers stop jobs with SIGTERM (a time limit, `scancel`, preemption) and
/// requeue them: the shard stopped mid-run and requeued resumes into its directory
/// and ends with every game exactly once, the single run's games.
#[test]
#[cfg_attr(
    not(has_slurm),
    ignore = "needs Slurm and munge for a single-node cluster: apt-get install slurm-wlm munge"
)]
#[cfg_attr(
    all(has_slurm, not(as_root)),
    ignore = "needs root: slurmd starts jobs only as root"
)]
fn a_shard_stopped_with_sigterm_and_requeued_finishes_with_every_game_once() {
    let cluster = cluster();
    let work = tempfile::tempdir().expect("temp dir");
    let config = work.path().join("slow.toml");
    // Deterministic bots that take 15 ms a move: a game lasts about a second, so
    // the task is caught with some games finished and one running.
    let good = uttt_tests::test_bot("good.py");
    let bot = |name: &str| {
        format!(
            "[[bot]]\nname = \"{name}\"\ncommand = \"python3 {} --random --delay 15 --tag {}\"\n",
            good.display(),
            cluster.tag()
        )
    };
    std::fs::write(
        &config,
        format!(
            "name = \"preempted\"\ngames = 8\n[time]\nmove-ms = 2000\n[openings]\nrandom-plies = 2\n{}{}",
            bot("a"),
            bot("b")
        ),
    )
    .expect("write the tournament file");
    let single = work.path().join("single");
    single_run(&config, &single);

    let results = work.path().join("results");
    let mut env = shard_env(&config, &results);
    env.push(("ARENA_SHARDS", "1".into()));
    let fail = |e: String| -> ! { panic!("{e}\n{}", cluster.logs()) };
    let job = cluster
        .sbatch(
            &recipe("slurm-array.sbatch"),
            &["--array=1"],
            &env,
            work.path(),
        )
        .unwrap_or_else(|e| fail(e));
    let task = cluster.running_task(job).unwrap_or_else(|e| fail(e));
    let games_file = results.join("shard-1").join("games.csv");
    let played = || {
        std::fs::read_to_string(&games_file)
            .map(|t| t.lines().count().saturating_sub(1))
            .unwrap_or(0)
    };
    cluster
        .wait_until("two games of the shard", Duration::from_secs(60), |_| {
            Ok((played() >= 2).then_some(()))
        })
        .unwrap_or_else(|e| fail(e));
    cluster
        .scancel(&["--batch", "--signal=TERM", &task.job_id.to_string()])
        .unwrap_or_else(|e| fail(e));
    let stopped = cluster
        .wait_until("the signalled task to end", Duration::from_secs(60), |c| {
            Ok(c.tasks(job)?.into_iter().find(|t| t.finished()))
        })
        .unwrap_or_else(|e| fail(e));
    let before = played();
    assert!(
        before < 8,
        "the task was stopped mid-run: {before} games, {stopped:?}"
    );
    assert_ne!(
        stopped.exit_code, "0:0",
        "a stopped task is not a success: {stopped:?}"
    );

    cluster.requeue(task.job_id).unwrap_or_else(|e| fail(e));
    // Slurm starts it again once the old run's credential has expired (after
    // cred_expire, 5 s on the test cluster).
    let tasks = cluster
        .wait_until(
            "the requeued task to complete",
            Duration::from_secs(120),
            |c| {
                Ok(c.tasks(job)?
                    .into_iter()
                    .find(|t| t.state == "COMPLETED" || (t.finished() && t.restarts > 0)))
            },
        )
        .unwrap_or_else(|e| fail(e));
    let output =
        std::fs::read_to_string(work.path().join(format!("slurm-{job}_1.out"))).unwrap_or_default();
    assert_eq!(
        (
            tasks.state.as_str(),
            tasks.exit_code.as_str(),
            tasks.restarts
        ),
        ("COMPLETED", "0:0", 1),
        "{tasks:?}\n{output}\n{}",
        cluster.logs()
    );
    let games = games_of(&[games_file]);
    let single_games = games_of(&[single.join("games.csv")]);
    assert_eq!(single_games.len(), 8);
    assert_eq!(
        games, single_games,
        "every game once, the single run's\n{output}"
    );
    // The daemons stop, and nothing of the job (the arena, a bot) is left.
    cluster.shutdown().unwrap_or_else(|e| panic!("{e}"));
}

/// The SPRT loop recipe on Slurm: rounds of batches as job arrays until
/// `arena sprt --decide` decides, with the decision of the batches it played.
#[test]
#[cfg_attr(
    not(has_slurm),
    ignore = "needs Slurm and munge for a single-node cluster: apt-get install slurm-wlm munge"
)]
#[cfg_attr(
    all(has_slurm, not(as_root)),
    ignore = "needs root: slurmd starts jobs only as root"
)]
fn an_sprt_in_batches_on_slurm_is_played_until_the_loop_recipe_decides() {
    let cluster = cluster();
    let work = tempfile::tempdir().expect("temp dir");
    let results = work.path().join("sprt");
    let out = Command::new(recipe("sprt-batches.sh"))
        .envs(cluster.env())
        .env("ARENA", arena_bin())
        .env("ARENA_NEW", "random")
        .env("ARENA_BASE", "greedy")
        .env("ARENA_SEED", SEED)
        .env("ARENA_PAIRS", "2")
        .env("ARENA_WIDTH", "2")
        .env("ARENA_ROUNDS", "5")
        .env("ARENA_OUT", &results)
        .env("ARENA_SPRT_ARGS", "--elo0 0 --elo1 100 --time 1000")
        .current_dir(work.path())
        .output()
        .expect("running sprt-batches.sh");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let context = format!(
        "{stdout}{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        cluster.logs()
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "random is weaker than greedy: H0\n{context}"
    );
    assert!(stdout.contains("round 1: batches 1-2"), "{context}");
    let verdict = stdout.lines().last().unwrap_or_default().to_string();
    assert!(verdict.starts_with("H0 accepted after"), "{context}");

    // Deciding again over the directories the loop left gives the same verdict.
    let dirs: Vec<PathBuf> = std::fs::read_dir(&results)
        .expect("the batches' directory")
        .map(|e| e.expect("entry").path())
        .collect();
    assert!(dirs.len() >= 2 && dirs.len().is_multiple_of(2), "{dirs:?}");
    let mut args: Vec<String> = vec!["sprt".into(), "--decide".into()];
    args.extend(dirs.iter().map(|d| d.to_string_lossy().into_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let again = arena(&args);
    assert_eq!(again.status.code(), Some(1));
    let again = String::from_utf8_lossy(&again.stdout).into_owned();
    assert_eq!(again.lines().last(), Some(verdict.as_str()), "{again}");
    cluster.shutdown().unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_slurm_recipe_outside_an_array_task_says_how_to_submit_it() {
    let out = Command::new(recipe("slurm-array.sbatch"))
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env("ARENA", "/bin/false")
        .output()
        .expect("running the sbatch script with bash");
    assert_ne!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("submit this script with sbatch --array=1-N"),
        "{stderr}"
    );
}

#[test]
#[cfg_attr(
    not(has_gnu_parallel),
    ignore = "needs GNU parallel (not moreutils'): apt-get install parallel"
)]
fn the_gnu_parallel_recipe_on_this_host_merges_into_the_single_machine_run() {
    let tag = Tag::new().0;
    let work = tempfile::tempdir().expect("temp dir");
    let config = work.path().join("cluster.toml");
    write_config(&config, &tag);
    let single = work.path().join("single");
    single_run(&config, &single);

    // As a user would: from the directory the paths are relative to.
    let run = Command::new(recipe("parallel.sh"))
        .arg(":")
        .current_dir(work.path())
        .env("ARENA", arena_bin())
        .env("ARENA_CONFIG", "cluster.toml")
        .env("ARENA_SEED", SEED)
        .env("ARENA_SHARDS", "4")
        .env("ARENA_OUT", "results")
        .env("ARENA_JOBS", "2")
        .env("ARENA_CONCURRENCY", "1")
        .output()
        .expect("running configs/cluster/parallel.sh");
    let context = format!(
        "{}\n{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(run.status.code(), Some(0), "{context}");
    let results = work.path().join("results");
    let shards: Vec<PathBuf> = (1..=4)
        .map(|k| results.join(format!("shard-{k}")))
        .collect();
    // The script merged them itself into results/merged; merge again to compare.
    assert_merges_into_single_run(&shards, &work.path().join("merged"), &single, &context);
    for table in ["standings.csv", "crosstable.csv"] {
        assert_eq!(
            std::fs::read_to_string(results.join("merged").join(table)).ok(),
            std::fs::read_to_string(single.join(table)).ok(),
            "the script's own merge: {table}\n{context}"
        );
    }
    assert_no_process_tagged(&tag);
}

/// A string at `path` (keys, or indices for arrays) in a YAML document.
fn yaml_str<'a>(doc: &'a Yaml, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(doc, |node, key| match key.parse::<usize>() {
            Ok(i) => node.as_vec()?.get(i),
            Err(_) => node.as_hash()?.get(&Yaml::String((*key).to_string())),
        })?
        .as_str()
}

#[test]
fn the_kubernetes_indexed_job_parses_and_its_command_plays_one_shard_per_index() {
    let path = recipe("k8s-indexed-job.yaml");
    let text = std::fs::read_to_string(&path).expect("the manifest is in the repo");
    let docs = YamlLoader::load_from_str(&text).expect("the manifest is valid YAML");
    assert_eq!(docs.len(), 1, "one document");
    let job = &docs[0];
    assert_eq!(yaml_str(job, &["apiVersion"]), Some("batch/v1"));
    assert_eq!(yaml_str(job, &["kind"]), Some("Job"));
    let spec = &job["spec"];
    assert_eq!(yaml_str(spec, &["completionMode"]), Some("Indexed"));
    let completions = spec["completions"].as_i64().expect("completions");
    let parallelism = spec["parallelism"].as_i64().expect("parallelism");
    assert!(completions > 0 && (1..=completions).contains(&parallelism));

    let container = &spec["template"]["spec"]["containers"][0];
    let command: Vec<&str> = container["command"]
        .as_vec()
        .expect("the container has a command")
        .iter()
        .filter_map(Yaml::as_str)
        .collect();
    assert_eq!(command.len(), 3, "{command:?}");
    assert_eq!(&command[..2], ["sh", "-c"]);
    let script = command[2];
    assert!(script.contains("JOB_COMPLETION_INDEX"), "{script}");
    let env: Vec<(String, String)> = container["env"]
        .as_vec()
        .expect("the container has env")
        .iter()
        .filter_map(|e| {
            Some((
                e["name"].as_str()?.to_string(),
                e["value"].as_str()?.to_string(),
            ))
        })
        .collect();
    let shards = env
        .iter()
        .find(|(name, _)| name == "SHARDS")
        .map(|(_, value)| value.as_str());
    assert_eq!(
        shards,
        Some(completions.to_string().as_str()),
        "SHARDS equals completions"
    );

    let concurrency = env
        .iter()
        .find(|(name, _)| name == "CONCURRENCY")
        .map(|(_, value)| value.as_str());
    assert_eq!(
        concurrency,
        yaml_str(container, &["resources", "requests", "cpu"]),
        "a pod plays as many games at once as it requests CPUs"
    );

    // Run the container's command for every completion index, as Kubernetes would,
    // with the manifest's environment. A stand-in `arena` first on PATH maps the
    // volume mounts (e.g. /cfg, /results) to directories of this test.
    let work = tempfile::tempdir().expect("temp dir");
    let mounts: Vec<(String, PathBuf)> = container["volumeMounts"]
        .as_vec()
        .expect("volume mounts")
        .iter()
        .filter_map(|m| {
            let name = m["name"].as_str()?;
            Some((m["mountPath"].as_str()?.to_string(), work.path().join(name)))
        })
        .collect();
    let mut cases = String::new();
    for (mount, local) in &mounts {
        std::fs::create_dir_all(local).expect("mount directory");
        cases.push_str(&format!(
            "    {mount}/*) arg=\"{}${{arg#{mount}}}\" ;;\n",
            local.display()
        ));
    }
    let bin = work.path().join("bin");
    std::fs::create_dir(&bin).expect("bin directory");
    let shim = bin.join("arena");
    std::fs::write(
        &shim,
        format!(
            "#!/bin/sh\n# The container's arena, with its volume mounts mapped to local directories.\n\
             for arg do\n  shift\n  case $arg in\n{cases}  esac\n  set -- \"$@\" \"$arg\"\ndone\n\
             exec {} \"$@\"\n",
            arena_bin().display()
        ),
    )
    .expect("write the stand-in arena");
    std::fs::set_permissions(&shim, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod the stand-in arena");
    // The tournament file the command names, where its mount is.
    let named = script
        .split_whitespace()
        .find(|w| w.ends_with(".toml"))
        .expect("the command names a tournament file");
    let (mount, local) = mounts
        .iter()
        .find(|(mount, _)| named.starts_with(&format!("{mount}/")))
        .expect("the tournament file is on a mounted volume");
    let config = local.join(&named[mount.len() + 1..]);
    let tag = Tag::new().0;
    write_config(&config, &tag);

    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    let mut outputs = String::new();
    for index in 0..completions {
        let out = Command::new("sh")
            .args(["-c", script])
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .env("PATH", &path)
            .current_dir(work.path())
            .output()
            .expect("running the container command");
        outputs.push_str(&String::from_utf8_lossy(&out.stdout));
        outputs.push_str(&String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "index {index}: {outputs}");
        assert!(
            outputs.contains(&format!("in shard {}/{completions}", index + 1)),
            "index {index} plays shard {}/{completions}: {outputs}",
            index + 1
        );
    }
    let seed = env
        .iter()
        .find(|(name, _)| name == "SEED")
        .map(|(_, v)| v.clone())
        .expect("the manifest sets SEED");
    let single = work.path().join("single");
    let run = Command::new(arena_bin())
        .arg("tournament")
        .arg(&config)
        .args(["--seed", &seed, "--quiet", "--concurrency", "2", "--out"])
        .arg(&single)
        .output()
        .expect("running arena");
    assert_eq!(run.status.code(), Some(0));
    let results = mounts
        .iter()
        .find(|(mount, _)| script.contains(&format!("{mount}/shard-")))
        .map(|(_, local)| local.clone())
        .expect("the command writes shard-K directories on a mounted volume");
    let shards: Vec<PathBuf> = (1..=completions)
        .map(|k| results.join(format!("shard-{k}")))
        .collect();
    assert_merges_into_single_run(&shards, &work.path().join("merged"), &single, &outputs);
    assert_no_process_tagged(&tag);
}

#[test]
fn the_guide_shows_the_recipes_as_they_are_in_the_files() {
    let readme = std::fs::read_to_string(repo_root().join("docs/guide/scale-out.md"))
        .expect("docs/guide/scale-out.md");
    // A copy in the guide is marked `<!-- file: PATH -->` right above its code block.
    let mut copies = 0;
    for (at, _) in readme.match_indices("<!-- file: ") {
        let rest = &readme[at + "<!-- file: ".len()..];
        let (name, rest) = rest.split_once(" -->").expect("a closed marker");
        let rest = rest.trim_start_matches('\n');
        assert!(
            rest.starts_with("```"),
            "a code block follows the marker of {name}"
        );
        let body = &rest[rest.find('\n').expect("a fence line") + 1..];
        let block = &body[..body.find("\n```\n").expect("a closing fence") + 1];
        let file = std::fs::read_to_string(repo_root().join(name))
            .unwrap_or_else(|e| panic!("README shows {name}, which cannot be read: {e}"));
        assert_eq!(block, file, "README's copy of {name} differs from the file");
        copies += 1;
    }
    for shown in ["slurm-array.sbatch", "sprt-batches.sh"] {
        assert!(
            readme.contains(&format!("<!-- file: configs/cluster/{shown} -->")),
            "the README shows {shown}"
        );
    }
    assert!(copies >= 1);
    let section = readme.as_str();
    for file in [
        "configs/cluster/slurm-array.sbatch",
        "configs/cluster/parallel.sh",
        "configs/cluster/k8s-indexed-job.yaml",
        "configs/cluster/sprt-batch.sbatch",
        "configs/cluster/sprt-batches.sh",
    ] {
        assert!(section.contains(file), "the scaling section names {file}");
        assert!(repo_root().join(file).is_file(), "{file} exists");
    }
    assert!(
        section.contains("not exercised in CI"),
        "the README says Kubernetes is not exercised in CI"
    );
}

/// Seconds `f` takes.
fn seconds(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Games in the games.csv files under `dirs`.
fn games_in(dirs: &[PathBuf]) -> usize {
    dirs.iter()
        .map(|d| read_csv(&d.join("games.csv")).len())
        .sum()
}

/// The benchmark behind BENCHMARKS.md's "Scaling out" section: games per second of one
/// tournament as a Slurm job array of 1, 2 and 4 tasks (one CPU and one game at a
/// time each) on the single-node cluster, against one process with --concurrency 1,
/// 2 and 4, alternating in the same run; then what a shard costs besides its games
/// (an empty shard in one process, and on Slurm) and what merging costs.
///
///   cargo build --release -p arena
///   cargo test -p uttt-tests --test cluster -- --ignored --nocapture bench
///
/// UTTT_BENCH_CONFIG (default configs/default.toml), UTTT_BENCH_ROUNDS (default 1).
#[test]
#[ignore = "benchmark: minutes of games; run it by name with --ignored --nocapture"]
fn bench_slurm_array_against_one_process() {
    let arena = repo_root().join("target/release/arena");
    assert!(
        arena.is_file(),
        "build the release arena first: cargo build --release -p arena"
    );
    let cluster = match Cluster::start() {
        Ok(cluster) => cluster,
        Err(StartError::Unavailable(why) | StartError::Failed(why)) => {
            panic!("no Slurm cluster: {why}")
        }
    };
    let config = std::env::var_os("UTTT_BENCH_CONFIG")
        .map_or_else(|| repo_root().join("configs/default.toml"), PathBuf::from);
    let rounds: u32 = std::env::var("UTTT_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1);
    let work = tempfile::tempdir().expect("temp dir");
    let fail = |e: String| -> ! { panic!("{e}\n{}", cluster.logs()) };
    let one_process = |config: &Path, out: &Path, concurrency: usize, extra: &[&str]| {
        let run = Command::new(&arena)
            .arg("tournament")
            .arg(config)
            .args(["--seed", "42", "--quiet", "--out"])
            .arg(out)
            .args(["--concurrency", &concurrency.to_string()])
            .args(extra)
            .output()
            .expect("running arena");
        assert_eq!(run.status.code(), Some(0), "{run:?}");
    };
    let slurm = |dir: &Path, tasks: usize, config: &Path, shards: usize| {
        std::fs::create_dir_all(dir).expect("job directory");
        let env: Vec<(&str, OsString)> = vec![
            ("ARENA", arena.clone().into()),
            ("ARENA_CONFIG", config.into()),
            ("ARENA_SEED", "42".into()),
            ("ARENA_SHARDS", shards.to_string().into()),
            ("ARENA_OUT", dir.join("results").into()),
        ];
        let array = format!("--array=1-{tasks}");
        let job = cluster
            .sbatch(&recipe("slurm-array.sbatch"), &[&array], &env, dir)
            .unwrap_or_else(|e| fail(e));
        let done = cluster
            .wait_for_array(job, tasks)
            .unwrap_or_else(|e| fail(e));
        assert!(done.iter().all(|t| t.state == "COMPLETED"), "{done:?}");
        (1..=tasks)
            .map(|k| dir.join(format!("results/shard-{k}")))
            .collect::<Vec<_>>()
    };

    println!("config {} on {} CPUs", config.display(), cluster.cpus());
    println!("| round | way | games | seconds | games/s |");
    println!("|---|---|---|---|---|");
    for round in 1..=rounds {
        for n in [1, 2, 4] {
            let out = work.path().join(format!("one-{round}-{n}"));
            let secs = seconds(|| one_process(&config, &out, n, &[]));
            let games = games_in(&[out]);
            println!(
                "| {round} | one process, --concurrency {n} | {games} | {secs:.1} | {:.2} |",
                games as f64 / secs
            );
            let dir = work.path().join(format!("slurm-{round}-{n}"));
            let mut shards = Vec::new();
            let secs = seconds(|| shards = slurm(&dir, n, &config, n));
            let games = games_in(&shards);
            println!(
                "| {round} | Slurm array of {n} (1 CPU each) | {games} | {secs:.1} | {:.2} |",
                games as f64 / secs
            );
        }
    }

    // A shard that plays nothing: the cost of a shard besides its games.
    let tiny = work.path().join("tiny.toml");
    std::fs::write(
        &tiny,
        "name = \"tiny\"\ngames = 2\n[[bot]]\ncommand = \"random\"\n[[bot]]\ncommand = \"greedy\"\n",
    )
    .expect("write tiny.toml");
    let empty_local: Vec<f64> = (0..7)
        .map(|i| {
            let out = work.path().join(format!("empty-{i}"));
            seconds(|| {
                let run = Command::new(&arena)
                    .arg("tournament")
                    .arg(&tiny)
                    .args(["--seed", "42", "--quiet", "--shard", "1000/1000", "--out"])
                    .arg(&out)
                    .output()
                    .expect("running arena");
                assert_eq!(run.status.code(), Some(0));
            })
        })
        .collect();
    println!(
        "empty shard in one process: median {:.3} s of 7",
        median(empty_local)
    );
    let tasks = 4 * cluster.cpus();
    for i in 0..3 {
        let dir = work.path().join(format!("empty-slurm-{i}"));
        // Shard 1 of 1000 holds the only pair; the others are empty.
        let secs = seconds(|| drop(slurm(&dir, tasks, &tiny, 1000)));
        println!(
            "Slurm array of {tasks} near-empty shards on {} CPUs: {secs:.1} s, {:.2} s per task and CPU",
            cluster.cpus(),
            secs * cluster.cpus() as f64 / tasks as f64
        );
    }

    // Merging: the ladder's shards, and 8 shards of a larger random round robin.
    let ladder: Vec<PathBuf> = (1..=4)
        .map(|k| work.path().join(format!("slurm-1-4/results/shard-{k}")))
        .collect();
    let big = work.path().join("big.toml");
    let mut text = String::from("name = \"big\"\ngames = 100\n[time]\nmove-ms = 1000\n");
    for i in 0..12 {
        text.push_str(&format!("[[bot]]\nname = \"r{i}\"\ncommand = \"random\"\n"));
    }
    std::fs::write(&big, text).expect("write big.toml");
    let big_shards: Vec<PathBuf> = (1..=8)
        .map(|k| {
            let out = work.path().join(format!("big-{k}"));
            one_process(&big, &out, 2, &["--shard", &format!("{k}/8")]);
            out
        })
        .collect();
    for (what, shards) in [("ladder", &ladder), ("random round robin", &big_shards)] {
        let games = games_in(shards);
        let times: Vec<f64> = (0..5)
            .map(|i| {
                let merged = work.path().join(format!("merged-{i}"));
                seconds(|| {
                    let mut command = Command::new(&arena);
                    command.arg("ratings");
                    for s in shards {
                        command.arg(s.join("games.csv"));
                    }
                    let out = command.arg("--out").arg(&merged).output().expect("ratings");
                    assert_eq!(out.status.code(), Some(0));
                })
            })
            .collect();
        println!(
            "merge of {} shards, {games} games ({what}): median {:.3} s of 5",
            shards.len(),
            median(times)
        );
    }
    cluster.shutdown().unwrap_or_else(|e| panic!("{e}"));
}

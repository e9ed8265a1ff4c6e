#!/usr/bin/env node
// A Node.js opponent for the sandbox tests: plays the first legal square.
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const words = line.trim().split(/\s+/);
  if (words[0] === "uttt") {
    process.stdout.write("id name nodeplayer\nready\n");
  } else if (words[0] === "go") {
    const i = words.indexOf("legal");
    process.stdout.write(words[i + 1].split(",")[0] + "\n");
  } else if (words[0] === "quit") {
    process.exit(0);
  }
});

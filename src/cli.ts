/**
 * The `learnharness` entry (bin/learnharness.js loads it through tsx). Exits
 * with the command's code, except for servers, which run until a signal.
 */

import { runCli } from "./cli/program.ts";

const outcome = await runCli(process.argv);
if ("exit" in outcome) {
	// Let stdout drain before exiting (a pipe may still hold the last lines).
	process.stdout.write("", () => process.exit(outcome.exit));
}

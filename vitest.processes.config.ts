import { defineConfig } from "vitest/config";
import { PROCESS_TESTS } from "./vitest.config.ts";

/**
 * The tests that start several `learnharness start` processes (three Slack bots behind a load
 * balancer, Discord shards), each with Chromium and its own store connections: on a 2-core
 * machine two of them at once, or one next to the rest of the suite, starve each other's
 * 3-second acknowledgements. `npm test` runs them after the rest, one file at a time.
 */
export default defineConfig({
	test: {
		include: PROCESS_TESTS,
		testTimeout: 120_000,
		hookTimeout: 120_000,
		fileParallelism: false,
	},
});

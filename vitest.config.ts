import { defineConfig } from "vitest/config";

/**
 * Tests that run several bot processes at once (see vitest.processes.config.ts), the failover ones with a
 * process killed (`kill -9`) and one paused (`SIGSTOP`): run after the rest, one file at a time.
 */
export const PROCESS_TESTS = [
	"test/multiprocess/slack-lessons.test.ts",
	"test/multiprocess/slack-failover.test.ts",
	"test/adapters/discord/shards.test.ts",
	"test/adapters/discord/shards-failover.test.ts",
];

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		exclude: ["**/node_modules/**", ...PROCESS_TESTS],
		// Bounds for a hang, not for speed: a busy machine (two cores shared with other work) must not fail a test.
		testTimeout: 120_000,
		hookTimeout: 120_000,
		// Two cores on CI: keep the suite's heavy parts (Chromium, SQLite builds) from fighting.
		maxWorkers: 2,
	},
});

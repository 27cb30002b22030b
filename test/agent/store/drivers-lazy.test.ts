/**
 * A process on SQLite (the default, the playground) loads no Redis or PostgreSQL driver and no slackify-markdown:
 * together they took about 0.5 s of a playground's start (drivers.ts). A store on Redis loads its driver.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { CHILD_START_MS } from "../../fixtures/child-process.ts";
import { tempDir } from "../helpers.ts";

const FIXTURE = fileURLToPath(new URL("../../fixtures/loaded-drivers.ts", import.meta.url));
const dir = tempDir();
afterAll(() => dir.cleanup());

/** The lazily loaded packages a process opening `url`'s stores has loaded. */
async function loadedWith(url: string): Promise<string[]> {
	const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", FIXTURE, url], {
		timeout: CHILD_START_MS,
	});
	return JSON.parse(stdout.trim()) as string[];
}

it("a SQLite store loads no Redis or PostgreSQL driver, and nothing loads slackify-markdown before Slack text", {
	timeout: 3 * CHILD_START_MS,
}, async () => {
	expect(await loadedWith(`sqlite://${join(dir.path, "lazy.sqlite")}`)).toEqual([]);
	// Opening a Redis store loads its driver (no connection is made until the first operation).
	expect(await loadedWith("redis://127.0.0.1:1")).toEqual(["@redis/client", "@keyv/redis"]);
	expect(await loadedWith("postgres://nobody@127.0.0.1:1/none")).toEqual(["pg", "@keyv/postgres"]);
});

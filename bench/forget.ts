/**
 * What forget-me's compaction costs on a SQLite store of realistic size: LESSONS lessons
 * (default 2,000) of MESSAGES messages each (default 60, about 500 bytes each), one learner's
 * lessons among them. Deletes that learner's lessons, then times the WAL checkpoint and the
 * VACUUM (compactSqlite), and checks that no byte of the files holds the learner's id.
 *
 *   npx tsx bench/forget.ts            LESSONS=5000 npx tsx bench/forget.ts
 */

import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSessionStore } from "../src/agent/store/session-store.ts";
import type { LessonMessage, SessionRecord } from "../src/agent/store/types.ts";

const LESSONS = Number(process.env.LESSONS ?? 2_000);
const MESSAGES = Number(process.env.MESSAGES ?? 60);
const FORGOTTEN = "u-forget-me-4242";
const OWN = 5;

const dir = mkdtempSync(join(tmpdir(), "lh-bench-forget-"));
const file = join(dir, "lh.sqlite");
const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const size = () =>
	["", "-wal", "-shm"].reduce((sum, s) => sum + (existsSync(file + s) ? statSync(file + s).size : 0), 0);

function lesson(i: number, learner: string): SessionRecord {
	const at = new Date().toISOString();
	const messages: LessonMessage[] = Array.from({ length: MESSAGES }, (_, m) => ({
		id: `m${i}-${m}`,
		role: m % 2 === 0 ? "user" : "assistant",
		metadata: m % 2 === 0 ? { kind: "learner", by: { id: learner, name: "Grace" }, at } : { agent: "teacher" },
		parts: [
			{
				type: "text",
				text: `${learner} says: ${"what is a common denominator of 3/4 and 5/6, and why does it matter? ".repeat(6)}`,
			},
		],
	}));
	return {
		format: 1,
		sessionId: `discord:g1:t${i}`,
		topic: "fractions",
		learner: { id: learner, name: "Grace" },
		mode: "solo",
		startedBy: { id: learner },
		createdAt: at,
		updatedAt: at,
		messages,
		usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
		extra: {},
	};
}

const store = await createSessionStore(`sqlite://${file}`);
let t = performance.now();
for (let i = 0; i < LESSONS; i++) await store.set(lesson(i, i < OWN ? FORGOTTEN : `u-${i}`));
console.log(`wrote ${LESSONS} lessons x ${MESSAGES} messages in ${((performance.now() - t) / 1000).toFixed(1)} s`);
console.log(`files: ${mb(size())}`);

t = performance.now();
for (let i = 0; i < OWN; i++) await store.delete(`discord:g1:t${i}`);
const deleteMs = performance.now() - t;
t = performance.now();
if (!store.compact) throw new Error("a SQLite store compacts");
await store.compact();
const compactMs = performance.now() - t;
const bytes = ["", "-wal", "-shm"]
	.filter((s) => existsSync(file + s))
	.map((s) => readFileSync(file + s).toString("latin1"))
	.join("");
console.log(
	`deleted ${OWN} lessons in ${deleteMs.toFixed(0)} ms; compaction (checkpoint + VACUUM) ${compactMs.toFixed(0)} ms`,
);
console.log(`files after: ${mb(size())}; the id in them: ${bytes.includes(FORGOTTEN) ? "FOUND" : "none"}`);
await store.close();
rmSync(dir, { recursive: true, force: true });

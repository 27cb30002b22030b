/**
 * `learnharness start` (what `npm start` runs) with SLACK_BOT_TOKEN, SLACK_SIGNING_SECRET
 * and SLACK_API_URL pointed at the fake Slack runs the built-in demo lesson to its end: a
 * child process on a free port, driven by a learner through signed requests.
 */

import { describe, expect, it } from "vitest";
import { startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { useNpmStart } from "../../fixtures/child-process.ts";
import { driveSlackLesson } from "../../fixtures/slack/drive-lesson.ts";

const started = useNpmStart(
	() => startFakeSlack({ users: [{ id: "U1", name: "ada" }] }),
	(fake) => ({
		SLACK_BOT_TOKEN: "xoxb-test",
		SLACK_SIGNING_SECRET: fake.signingSecret,
		SLACK_API_URL: fake.apiUrl,
		PORT: "0",
	}),
);
const output = started.output;

describe("npm start against the fake Slack", () => {
	it("listens on a free port and runs the demo lesson to the end in a thread", { timeout: 120_000 }, async () => {
		const fake = started.fake();
		// PORT=0: the adapter's log line says which port it bound.
		const port = await fake.waitFor(
			() => {
				const line = output()
					.split("\n")
					.find((l) => l.includes('"msg":"slack: adapter started"'));
				return line ? (JSON.parse(line) as { port?: number }).port : undefined;
			},
			"the adapter's port in the log",
			60_000,
		);
		const sender = fake.sender(`http://127.0.0.1:${port}/slack/events`);
		const lesson = await driveSlackLesson(fake, sender, {
			actor: { user: "U1", name: "ada", channel: "C1" },
			topic: "binary search",
			timeoutMs: 90_000,
		});
		expect(lesson.ended, `actions: ${lesson.actions.join(", ")}\n${output().slice(-2000)}`).toBe(true);
		expect(lesson.actions.length).toBeGreaterThan(2);
		expect(fake.uploads.some((u) => u.completed && u.threadTs === lesson.threadTs)).toBe(true);
		expect(fake.limitProblems()).toEqual([]);
		expect(output()).not.toMatch(/"level":(50|60)/); // no error or fatal lines
	});
});

/**
 * /lesson subcommands, per-workspace config, mentions, the End button and refusals,
 * through real Bolt over HTTP against the fake Slack, with a fake Tutor.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import type { RecordedCall } from "../../../testkit/fakes/slack.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { type Running, startAdapter, textOf } from "./harness.ts";

const ADA = { user: "U1", name: "ada", channel: "C1" };
const BOB = { user: "U2", name: "bob", channel: "C1" };
const ROOT = { user: "UADMIN", name: "root", channel: "C1" };

describe("Slack /lesson commands and mentions", { timeout: 20_000 }, () => {
	let fake: FakeSlack;
	let tutor: FakeTutor;
	let running: Running;
	let replies = 0;

	/** Send a command and wait for its ephemeral reply (via response_url). */
	const command = async (text: string, actor = ADA): Promise<string> => {
		const res = await running.sender.command("/lesson", text, actor);
		expect(res.status).toBe(200);
		expect(res.text).toBe(""); // acked at once, empty
		const n = ++replies;
		const reply = await fake.waitFor(() => fake.callsTo("response_url")[n - 1], `reply ${n} to "${text}"`);
		return String(reply.params.text);
	};
	const parents = (): RecordedCall[] =>
		fake.callsTo("chat.postMessage").filter((c) => c.params.thread_ts === undefined);

	beforeAll(async () => {
		fake = await startFakeSlack({
			users: [
				{ id: "U1", name: "ada" },
				{ id: "U2", name: "bob" },
				{ id: "UADMIN", name: "root", is_admin: true },
			],
		});
		tutor = new FakeTutor();
		running = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined), state: createMemoryStateStore() });
	});
	afterEach(() => {
		tutor.verdict = { ok: true };
	});
	afterAll(async () => {
		await running?.adapter.stop();
		expect(tutor.subscribers()).toBe(0);
		await fake?.close();
	});

	it("answers Slack's url_verification challenge", async () => {
		const res = await running.sender.raw(
			JSON.stringify({ type: "url_verification", challenge: "c-123", token: "t" }),
			"application/json",
		);
		expect(res.status).toBe(200);
		expect(res.text).toContain("c-123");
	});

	it("names an unknown subcommand before the help (help itself: commands-contract.test.ts)", async () => {
		expect(await command("frobnicate now")).toMatch(/^I don't know `frobnicate`\.\n.*\/lesson start &lt;topic&gt;/);
	});

	it("refuses a start without a topic", async () => {
		expect(await command("start")).toMatch(/Give the lesson a topic/);
		expect(tutor.started).toHaveLength(0);
	});

	it("starts a group lesson in a new thread and reports status", async () => {
		// The reply links the thread (chat.getPermalink of the parent message).
		expect(await command("start --group Group theory")).toMatch(
			/^Your group lesson on \*Group theory\* is ready: <https:\/\/fake\.slack\.com\/archives\/C1\/p\d+\|open its thread>$/,
		);
		const [started] = tutor.started;
		expect(started?.topic).toBe("Group theory");
		expect(started?.mode).toBe("group");
		expect(started?.learner.id).toBe("U1");
		const parentTs = started!.sessionId.split(":")[3]!;
		expect(started?.sessionId).toBe(`slack:${fake.teamId}:C1:${parentTs}`);
		expect(fake.messages.get(parentTs)?.threadTs).toBeUndefined();
		expect(textOf(parents()[0]!.params)).toContain("lh-slack:end");
		const status = await command("status");
		expect(status).toMatch(/Group theory.*group.*<https:\/\/fake\.slack\.com\/archives\/C1\/p\d+\|open the thread>/s);
		expect(status).not.toMatch(/messages: |\(s\)/); // no internal counts, no "question(s)"
		expect(status).toMatch(/\nNow: .* · (no question open|\d+ questions? waiting for an answer)/);
	});

	it("ends the learner's lesson with /lesson end (unprivileged)", async () => {
		expect(await command("end")).toMatch(/Ending/);
		const last = tutor.handled.at(-1);
		expect(last?.event).toEqual({ type: "end", by: { id: "U1", name: "ada" }, privileged: false });
	});

	it("gates /lesson config to admins, and applies channels, limit and mode", async () => {
		expect(await command("config", BOB)).toMatch(/Only admins can change lesson settings/);
		expect(await command("config channels <#C9|study>", ROOT)).toMatch(/Saved.*<#C9>/s);
		expect(await command("start fractions", BOB)).toMatch(
			/Lessons can.t run in this channel\. Run `\/lesson start &lt;topic&gt;` in <#C9>/,
		);
		expect(await command("config channels all", ROOT)).toMatch(/every channel/);
		expect(await command("config limit 1", ROOT)).toMatch(/1 per member per day/);
		expect(await command("config mode group", ROOT)).toMatch(/Default mode: group/);
		expect(await command("config limit lots", ROOT)).toMatch(/whole number/);
		expect(await command("start fractions", BOB)).toMatch(/is ready/);
		expect(tutor.started.at(-1)?.mode).toBe("group");
		expect(await command("start decimals", BOB)).toBe(
			"You have already started 1 lesson today; the limit here is 1 lesson per member per day (UTC). Try again tomorrow.",
		);
		expect(await command("start decimals", ROOT)).toMatch(/is ready/); // admins are exempt
		await command("config limit 0", ROOT);
		await command("config mode solo", ROOT);
	});

	it("lets only admins start a lesson for someone else", async () => {
		expect(await command("start <@U2|bob> algebra", ADA)).toMatch(/Only admins can start a lesson for someone else/);
		expect(await command("start <@U2|bob> algebra", ROOT)).toMatch(/lesson on \*algebra\* for <@U2> is ready/);
		expect(tutor.started.at(-1)).toMatchObject({
			topic: "algebra",
			learner: { id: "U2" },
			startedBy: { id: "UADMIN" },
		});
	});

	it("says how to invite the bot when it is not in the channel", async () => {
		fake.override("chat.postMessage", () => ({ body: { ok: false, error: "not_in_channel" } }));
		try {
			expect(await command("start geometry")).toMatch(/Invite me first/);
		} finally {
			fake.override("chat.postMessage", undefined);
		}
	});

	it("starts a lesson from a mention with a topic, and explains when the topic is missing", async () => {
		const before = tutor.started.length;
		await running.sender.event({
			type: "app_mention",
			user: "U1",
			text: "<@U0BOT> photosynthesis",
			ts: running.sender.nextTs(),
			channel: "C1",
		});
		await fake.waitFor(() => tutor.started.length > before, "the mention's lesson");
		expect(tutor.started.at(-1)).toMatchObject({ topic: "photosynthesis", learner: { id: "U1" }, mode: "solo" });
		await running.sender.event({
			type: "app_mention",
			user: "U2",
			text: "<@U0BOT>",
			ts: running.sender.nextTs(),
			channel: "C1",
		});
		const hint = await fake.waitFor(
			() =>
				fake
					.callsTo("chat.postEphemeral")
					.find((c) => c.params.user === "U2" && /Mention me with a topic/.test(String(c.params.text))),
			"the mention hint",
		);
		expect(hint.params.channel).toBe("C1");
	});

	it("a mention inside a thread that is no lesson starts one, though Slack sends it as a message first", async () => {
		const before = tutor.started.length;
		tutor.verdict = { ok: false, code: "unknown-session", message: "No lesson runs in this thread." };
		try {
			const mention = {
				user: "U1",
				text: "<@U0BOT> tides",
				ts: running.sender.nextTs(),
				thread_ts: "1700000000.000100",
				channel: "C1",
			};
			// Slack delivers one mention as a `message` and as an `app_mention`; the message arrives first here.
			await running.sender.event({ type: "message", ...mention });
			await running.sender.event({ type: "app_mention", ...mention });
			await fake.waitFor(() => tutor.started.length > before, "the lesson the mention starts");
		} finally {
			tutor.verdict = { ok: true };
		}
		expect(tutor.started.at(-1)).toMatchObject({ topic: "tides", learner: { id: "U1" } });
	});

	it("lets the learner or an admin use the End button, and tells anyone else", async () => {
		const lesson = tutor.started.find((s) => s.topic === "photosynthesis")!;
		const parentTs = lesson.sessionId.split(":")[3]!;
		// The tutor decides who may end (the engine refuses a member who is neither learner nor admin).
		tutor.verdict = { ok: false, code: "not-allowed", message: "Only the learner (or an admin) can end this lesson." };
		await running.sender.action(BOB, parentTs, { action_id: "lh-slack:end" });
		await fake.waitFor(
			() =>
				fake
					.callsTo("chat.postEphemeral")
					.find((c) => c.params.user === "U2" && /Only <@U1> or an admin/.test(String(c.params.text))),
			"the End refusal",
		);
		expect(tutor.handled.at(-1)).toMatchObject({ event: { type: "end", by: { id: "U2" }, privileged: false } });
		tutor.verdict = { ok: true };
		const handledBefore = tutor.handled.length;
		await running.sender.action(ROOT, parentTs, { action_id: "lh-slack:end" });
		await fake.waitFor(() => tutor.handled.length > handledBefore, "the admin's end");
		expect(tutor.handled.at(-1)).toMatchObject({
			sessionId: lesson.sessionId,
			event: { type: "end", privileged: true },
		});
	});

	it("turns a refused click into an ephemeral notice in the thread", async () => {
		const lesson = tutor.started.find((s) => s.topic === "photosynthesis")!;
		const threadTs = lesson.sessionId.split(":")[3]!;
		const posted = await fetchPost(fake, threadTs); // stands in for a card in the lesson thread
		tutor.verdict = { ok: false, code: "not-pending", message: "The lesson moved on from that question." };
		await running.sender.action(ADA, posted, { action_id: "lh:pick:call-9:1" });
		const notice = await fake.waitFor(
			() =>
				fake
					.callsTo("chat.postEphemeral")
					.find((c) => /no longer open \(it was answered or replaced\)/.test(String(c.params.text))),
			"the stale-click notice",
		);
		expect(notice.params.thread_ts).toBe(threadTs);
		expect(tutor.handled.at(-1)?.event).toMatchObject({ type: "answer", toolCallId: "call-9", value: 1 });
	});

	it("opens the answer modal within the trigger's 3 s even when the tutor is too slow to ask first", async () => {
		const lesson = tutor.started.find((s) => s.topic === "photosynthesis")!;
		const posted = await fetchPost(fake, lesson.sessionId.split(":")[3]!);
		const opens = fake.callsTo("views.open").length;
		const release = tutor.hold(); // the tutor (and so the pre-check) is slow
		try {
			const started = Date.now();
			const click = await running.sender.action(ADA, posted, { action_id: "lh:open:call-10" });
			expect(click.status).toBe(200);
			// The trigger_id lives 3 s: the pre-check gives up in time and the form opens (the submit is checked).
			const opened = await fake.waitFor(() => fake.callsTo("views.open")[opens], "views.open while the tutor is held");
			expect(Date.now() - started).toBeLessThan(3_000);
			expect(JSON.stringify(opened.params.view)).toContain("lh:text:call-10");
		} finally {
			release();
		}
	});

	it("does not open the answer modal for a question the tutor's summary no longer has pending", async () => {
		const lesson = tutor.started.find((s) => s.topic === "photosynthesis")!;
		const posted = await fetchPost(fake, lesson.sessionId.split(":")[3]!);
		const opens = fake.callsTo("views.open").length;
		const notices = fake.callsTo("chat.postEphemeral").length;
		await running.sender.action(ADA, posted, { action_id: "lh:open:call-11" });
		const notice = await fake.waitFor(
			() => fake.callsTo("chat.postEphemeral").slice(notices)[0],
			"the no-longer-open notice",
		);
		expect(String(notice.params.text)).toMatch(/no longer open \(it was answered or replaced\)/);
		expect(fake.callsTo("views.open")).toHaveLength(opens);
		// Pending in the summary (with its question): the form opens, labelled with the question.
		const summary = tutor.sessions.get(lesson.sessionId)!;
		summary.pending = [{ toolCallId: "call-12", kind: "ask", input: { question: "Why do leaves look green?" } }];
		await running.sender.action(ADA, posted, { action_id: "lh:open:call-12" });
		const opened = await fake.waitFor(() => fake.callsTo("views.open")[opens], "views.open");
		expect(JSON.stringify(opened.params.view)).toContain("Why do leaves look green?");
		summary.pending = [];
	});

	it("acks a command and a click before the tutor has answered", async () => {
		const release = tutor.hold();
		try {
			const calls = tutor.calls;
			const res = await running.sender.command("/lesson", "start held topic", ADA);
			expect(res.status).toBe(200);
			expect(res.text).toBe("");
			const click = await running.sender.action(ADA, "1700000000.999999", { action_id: "lh:pick:held:0" });
			expect(click.status).toBe(200);
			expect(tutor.started.find((s) => s.topic === "held topic")).toBeUndefined(); // still held
			await fake.waitFor(() => tutor.calls > calls, "the held start to reach the tutor");
		} finally {
			release();
		}
		await fake.waitFor(() => tutor.started.find((s) => s.topic === "held topic"), "the released start");
		replies++; // the held start's reply
		await fake.waitFor(() => fake.callsTo("response_url")[replies - 1], "the held start's reply");
	});
});

/** Post a bot message into a thread (as a card would be) and return its ts. */
async function fetchPost(fake: FakeSlack, threadTs: string): Promise<string> {
	const res = await fetch(`${fake.apiUrl}chat.postMessage`, {
		method: "POST",
		headers: { "content-type": "application/json", authorization: "Bearer xoxb-test" },
		body: JSON.stringify({ channel: "C1", thread_ts: threadTs, text: "a card" }),
		signal: AbortSignal.timeout(5000),
	});
	return String(((await res.json()) as { ts: string }).ts);
}

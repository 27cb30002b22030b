/**
 * Recorded Slack Events API payloads (testkit/fixtures/recorded/slack/events), signed and POSTed to Bolt's HTTP
 * receiver as Slack sends them, one fresh adapter each: what the bot does with each. Thread messages reach the
 * lesson decoded (Slack's escapes and control sequences undone), mentions start lessons, shared files are read,
 * and what is not a person typing in a lesson (bots, edits, deletions, joins, reactions, direct messages) is
 * acknowledged and dropped. A lesson is the tutor's: here an in-test tutor that records what reaches it.
 */

import { afterEach, describe, expect, it } from "vitest";
import { encodeSlackThreadId } from "../../src/adapters/slack/thread-id.ts";
import { createMemoryStateStore } from "../../src/agent/index.ts";
import type { LearnerEvent } from "../../src/core/contracts/events.ts";
import { type FakeSlack, startFakeSlack } from "../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { FakeTutor } from "../adapters/lesson/fake-tutor.ts";
import { type Running, startAdapter } from "../adapters/slack/harness.ts";
import { changedPaths, entriesOf, eventOf, listedAdaptations, type RecordedEntry, readObject } from "./payloads.ts";

/** A 1×1 PNG: the bytes the fake serves for a recorded image share (the payload names the file, not its bytes). */
const PNG = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
	"base64",
);

/** Where a lesson thread is added for a message recorded outside one. */
const ADDED_THREAD_TS = "1600000000.000100";

/** How a payload is replayed, and what the bot must do with it. */
interface SlackEventCase {
	/**
	 * A lesson runs in the message's thread: `recorded` (the thread the payload names) or `added` (the payload was
	 * recorded outside a thread; the replay puts it in one, since only thread messages reach a lesson).
	 */
	lesson?: "recorded" | "added";
	/** Shared files are served by the fake (their recorded URLs point at files.slack.com). */
	serveFiles?: { mimetype: string; data: Buffer };
	expect: (r: Replayed) => void | Promise<void>;
}

interface Replayed {
	status: number;
	fake: FakeSlack;
	tutor: FakeTutor;
	/** The lesson's session id when one was seeded. */
	sessionId?: string;
	/** What reached the tutor (after the seeding). */
	handled: LearnerEvent[];
	/** Lessons the payload started. */
	started: Array<{ sessionId: string; topic: string }>;
}

/** Nothing reached the tutor and nothing was posted: acknowledged and dropped. */
function dropped(r: Replayed): void {
	expect(r.status).toBe(200);
	expect(r.handled).toEqual([]);
	expect(r.started).toEqual([]);
	expect(r.fake.callsTo("chat.postMessage")).toEqual([]);
	expect(r.fake.callsTo("chat.postEphemeral")).toEqual([]);
}

/** One message reached the lesson, with this text (and these many pictures). */
function typed(text: string, images = 0) {
	return (r: Replayed): void => {
		expect(r.status).toBe(200);
		expect(r.handled).toHaveLength(1);
		const event = r.handled[0];
		expect(event).toMatchObject({ type: "message", text });
		expect(event?.type === "message" ? (event.images ?? []).length : -1).toBe(images);
		expect(r.started).toEqual([]);
	};
}

/** The mention started a lesson on this topic, in a thread under the mention's channel. */
function starts(topic: string, channel: string) {
	return (r: Replayed): void => {
		expect(r.status).toBe(200);
		expect(r.started.map((s) => s.topic)).toEqual([topic]);
		expect(r.started[0]?.sessionId).toMatch(new RegExp(`^slack:[^:]+:${channel}:`));
		expect(r.fake.callsTo("chat.postMessage").map((c) => c.params.channel)).toContain(channel);
	};
}

const CASES: Record<string, SlackEventCase> = {
	// A mention arrives twice, as `message` and as `app_mention`; outside a lesson the `message` one is left alone.
	"slack/events/message-mention-channel.json": { expect: dropped },
	"slack/events/message-thread-reply.json": { lesson: "recorded", expect: typed("Hi") },
	"slack/events/app-mention-channel.json": { expect: starts("Hey", "C00FAKECHAN1") },
	"slack/events/message-thread-reply-dm-me.json": { lesson: "recorded", expect: typed("DM me") },
	// Lessons live in threads: a direct message outside one is not a lesson's.
	"slack/events/message-im.json": { expect: dropped },
	"slack/events/message-im-full-envelope.json": { expect: dropped },
	"slack/events/message-im-second.json": { expect: dropped },
	"slack/events/message-im-golden.json": { expect: dropped },
	"slack/events/app-mention-with-team.json": { expect: starts("Hey", "C00FAKECHAN1") },
	"slack/events/message-with-channel-link.json": {
		lesson: "added",
		// The bot's mention is dropped; a channel link without a label reads as its id.
		expect: typed("Can you see the name of this channel: #C00FAKECHAN2?"),
	},
	"slack/events/reaction-added.json": { expect: dropped },
	"slack/events/app-mention-modals.json": { expect: starts("Hello", "C00FAKECHAN2") },
	"slack/events/member-joined-channel.json": { expect: dropped },
	"slack/events/bot-message-in-thread.json": { lesson: "recorded", expect: dropped },
	"slack/events/message-thread-reply-digit.json": { lesson: "recorded", expect: typed("2") },
	"slack/events/message-changed-bot-edit.json": { expect: dropped },
	"slack/events/bot-message-thread-reply.json": { lesson: "recorded", expect: dropped },
	"slack/events/message-changed-unfurl.json": { expect: dropped },
	"slack/events/file-share-snippet-im.json": {
		lesson: "added",
		serveFiles: { mimetype: "text/plain", data: Buffer.from("hug a kitten") },
		// The text goes to the lesson; the snippet is not a picture, and the learner is told so, privately.
		expect: async (r) => {
			typed("message message message")(r);
			const notice = await r.fake.waitFor(() => r.fake.callsTo("chat.postEphemeral")[0], "the private notice");
			expect(notice.params).toMatchObject({ channel: "D0442US94JD", user: "U043H11ES4V", thread_ts: ADDED_THREAD_TS });
			expect(String(notice.params.text)).toMatch(/namenamename\.txt/);
		},
	},
	"slack/events/message-control-sequences.json": {
		lesson: "added",
		// Slack's control sequences made readable: the channel by its name, the user mention dropped, the link as its URL.
		expect: typed("#general :cat: https://google.com text text text"),
	},
	// A bot's post (here an integration's link) never reaches a lesson, even in its thread.
	"slack/events/bot-message-subtype.json": { lesson: "added", expect: dropped },
	"slack/events/message-link-only.json": {
		lesson: "added",
		expect: typed("https://jadeapptesting.slack.com/archives/C043YJGBY49/p1663961604007869"),
	},
	"slack/events/message-deleted.json": { expect: dropped },
	"slack/events/app-mention-enterprise.json": { expect: starts("Hi there!", "C111") },
	"slack/events/file-share-png-channel.json": {
		lesson: "added",
		serveFiles: { mimetype: "image/png", data: PNG },
		expect: (r) => {
			typed("Hi there!", 1)(r);
			// Fetched from the fake with the bot token, as url_private must be.
			expect(r.fake.fileFetches.map((f) => f.token)).toEqual(["xoxb-test"]);
		},
	},
	"slack/events/message-changed-user-edit.json": { expect: dropped },
	"slack/events/thread-broadcast.json": { lesson: "recorded", expect: typed("Hi there!") },
	"slack/events/bot-message-other-app.json": { expect: dropped },
	"slack/events/file-share-slack-connect.json": {
		lesson: "added",
		expect: async (r) => {
			// Slack Connect: the file is only an id with file_access "check_file_info"; Slack's documentation says
			// to look it up with files.info, which gives its url_private.
			expect(r.fake.callsTo("files.info").map((c) => c.params.file)).toEqual(["F12345678"]);
			typed("message message message", 1)(r);
		},
	},
};

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
	await stop?.();
	stop = undefined;
});

/** Replay one payload on a fresh fake workspace and adapter; the manifest must list every field the replay rewrote. */
async function replay(entry: RecordedEntry, c: SlackEventCase): Promise<Replayed> {
	const fake = await startFakeSlack();
	const tutor = new FakeTutor();
	let running: Running | undefined;
	stop = async () => {
		await running?.adapter.stop();
		await fake.close();
	};
	running = await startAdapter(
		fake,
		{ tutor, renderer: stubRenderer(undefined), state: createMemoryStateStore() },
		{ vision: true },
	);
	const original = readObject(entry.file);
	const body = structuredClone(original);
	const event = eventOf(body);
	if (c.lesson === "added") event.thread_ts = ADDED_THREAD_TS;
	if (c.serveFiles && Array.isArray(event.files))
		for (const file of event.files as Array<Record<string, unknown>>) {
			const shared = fake.shareFile({ name: String(file.name), ...c.serveFiles });
			file.url_private = shared.url_private;
			file.url_private_download = shared.url_private_download;
		}
	if (c.serveFiles === undefined && entry.file.endsWith("slack-connect.json"))
		// What files.info answers for the recorded file id (the fake's shared file, under that id).
		fake.override("files.info", (params) => {
			const shared = fake.shareFile({ name: "shared.png", mimetype: "image/png", data: PNG });
			return { body: { ok: true, file: { ...shared, id: params.file } } };
		});
	expect(changedPaths(original, body).sort()).toEqual(listedAdaptations(entry));

	let sessionId: string | undefined;
	if (c.lesson) {
		const teamId = String(body.team_id);
		sessionId = encodeSlackThreadId({ teamId, channelId: String(event.channel), threadTs: String(event.thread_ts) });
		await tutor.startLesson({ sessionId, topic: "recorded", learner: { id: String(event.user) }, mode: "solo" });
	}
	const startedBefore = tutor.started.length;
	const res = await running.sender.raw(JSON.stringify(body), "application/json");
	return {
		status: res.status,
		fake,
		tutor,
		...(sessionId ? { sessionId } : {}),
		handled: tutor.handled.map((h) => h.event),
		started: tutor.started.slice(startedBefore).map((s) => ({ sessionId: s.sessionId, topic: s.topic })),
	};
}

describe("recorded Slack events, replayed through Bolt's HTTP receiver", { timeout: 20_000 }, () => {
	const entries = entriesOf("slack-event");

	it.each(entries.map((e) => [e.file, e] as const))("%s", async (file, entry) => {
		const c = CASES[file];
		if (!c) throw new Error(`no expectation for ${file}`);
		await c.expect(await replay(entry, c));
	});

	it("has an expectation for every recorded event and no other", () => {
		expect(Object.keys(CASES).sort()).toEqual(entries.map((e) => e.file).sort());
	});
});

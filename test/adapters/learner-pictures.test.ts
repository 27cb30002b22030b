/**
 * A learner's picture, end to end: attached on the Discord fake or shared on the Slack fake,
 * through the real adapter, the lesson controller and the real engine, it reaches the
 * OpenAI-compatible fake as an image part of the next request (and of every later one:
 * the transcript keeps it); a Slack Connect share (no URL in the event) is looked up with
 * files.info. A 30 MB upload, a PDF and a file on a foreign host get a clear
 * notice while the message's text still goes through; the demo model (no vision) says it
 * cannot see pictures and the lesson goes on.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLanguageModel, createSessionStore, createTutor, openStateStore } from "../../src/agent/index.ts";
import { DEMO_HELD } from "../../src/agent/models/demo-lesson.ts";
import type { LessonMessage } from "../../src/agent/store/types.ts";
import { startFakeDiscord } from "../../testkit/fakes/discord.ts";
import { type FakeOpenAI, startFakeOpenAI } from "../../testkit/fakes/openai.ts";
import { startFakeSlack } from "../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { startStack } from "./discord/helpers.ts";
import { startAdapter } from "./slack/harness.ts";

const PNG = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
	"base64",
);
const PNG_URL = `data:image/png;base64,${PNG.toString("base64")}`;
/** Another picture (one red pixel), so a second share is told apart from the first. */
const RED = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC",
	"base64",
);
const PDF = Buffer.from("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n", "latin1");
const THIRTY_MB = Buffer.alloc(30 * 1024 * 1024, 0x89);

type ChatPart = { type: string; text?: string; image_url?: { url: string } };
type ChatMessage = { role: string; content: string | ChatPart[] };

/** The user messages of a recorded chat-completions request. */
const userMessages = (openai: FakeOpenAI, n: number): ChatMessage[] =>
	((openai.requests[n]?.body.messages ?? []) as ChatMessage[]).filter((m) => m.role === "user");
const partsOf = (m: ChatMessage | undefined): ChatPart[] =>
	typeof m?.content === "string" ? [{ type: "text", text: m.content }] : (m?.content ?? []);
const imagesIn = (openai: FakeOpenAI, n: number): string[] =>
	userMessages(openai, n).flatMap((m) => partsOf(m).flatMap((p) => (p.image_url ? [p.image_url.url] : [])));
const lastUserText = (openai: FakeOpenAI, n: number): string =>
	partsOf(userMessages(openai, n).at(-1))
		.map((p) => p.text ?? "")
		.join("");

async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 10));
	}
}

let openai: FakeOpenAI;
let foreign: { server: Server; origin: string; requests: string[] };
const dir = mkdtempSync(join(tmpdir(), "lh-pictures-"));

beforeAll(async () => {
	openai = await startFakeOpenAI();
	const requests: string[] = [];
	const server = createServer((req, res) => {
		requests.push(req.url ?? "");
		res.writeHead(200, { "content-type": "image/png" });
		res.end(PNG);
	});
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	foreign = { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
});

afterAll(async () => {
	await openai.close();
	foreign.server.closeAllConnections();
	await new Promise<void>((done) => foreign.server.close(() => done()));
	rmSync(dir, { recursive: true, force: true });
});

const visionModel = () => createLanguageModel({ model: "fake-llava", baseUrl: openai.baseURL, apiKey: "test-key" });

describe("a learner's picture on Discord", () => {
	it("reaches the model as an image part; a 30 MB upload and a PDF get a notice and their text goes through", async () => {
		const fake = await startFakeDiscord();
		const stack = await startStack(fake, visionModel(), { png: PNG, config: { vision: true } });
		const first = openai.requests.length;
		try {
			openai.reply({ text: "Hi! What are you stuck on?" });
			const learner = fake.users.learner;
			fake.slash({ user: learner, channelId: fake.ids.general, subcommand: "start", options: { topic: "geometry" } });
			const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
			const sessionId = `discord:${fake.guild.id}:${thread.id}`;
			await until(() => openai.requests.length === first + 1, "the first model request");
			await stack.tutor.idle(sessionId);

			openai.reply({ text: "I see a triangle." });
			fake.say({
				user: learner,
				channelId: thread.id,
				content: "here is my problem",
				files: [{ filename: "problem.png", contentType: "image/png", data: PNG }],
			});
			await until(() => openai.requests.length === first + 2, "the request with the picture");
			expect(imagesIn(openai, first + 1)).toEqual([PNG_URL]);
			expect(lastUserText(openai, first + 1)).toBe("here is my problem");
			expect(fake.attachmentFetches).toHaveLength(1);
			expect(fake.attachmentFetches[0]?.authorized).toBe(false); // the CDN's links are signed: no token leaves
			await stack.tutor.idle(sessionId);

			openai.reply({ text: "That scan is too big, tell me in words." }, { text: "No PDFs, fine." });
			fake.say({
				user: learner,
				channelId: thread.id,
				content: "and the scan",
				files: [{ filename: "scan.png", contentType: "image/png", data: THIRTY_MB }],
			});
			await until(() => openai.requests.length === first + 3, "the request after the big upload");
			expect(lastUserText(openai, first + 2)).toBe("and the scan");
			// The first picture is sent again (the transcript keeps it); the 30 MB one never was downloaded.
			expect(imagesIn(openai, first + 2)).toEqual([PNG_URL]);
			expect(fake.attachmentFetches).toHaveLength(1);
			await stack.tutor.idle(sessionId);

			fake.say({
				user: learner,
				channelId: thread.id,
				content: "my notes",
				files: [{ filename: "notes.pdf", contentType: "application/pdf", data: PDF }],
			});
			await until(() => openai.requests.length === first + 4, "the request after the PDF");
			expect(lastUserText(openai, first + 3)).toBe("my notes");
			expect(imagesIn(openai, first + 3)).toEqual([PNG_URL]);
			await stack.tutor.idle(sessionId);
			await stack.adapter.flush(5_000);

			const notices = fake
				.channelMessages(thread.id)
				.filter((m) => m.author.id === fake.bot.id)
				.map((m) => m.text);
			expect(notices.join("\n")).toMatch(
				/"scan\.png" is too big \(30 MB\): pictures up to 5\.0 MB reach the tutor\. Your text went to the tutor\./,
			);
			expect(notices.join("\n")).toMatch(
				/"notes\.pdf" is not a picture the tutor can read \(PNG, JPEG, GIF or WebP only\)/,
			);
			// The lesson went on: every reply was posted.
			expect(notices.join("\n")).toMatch(/No PDFs, fine\./);
			expect(stack.logger.errors()).toEqual([]);
			expect(fake.problems()).toEqual([]);
		} finally {
			await stack.close();
			await fake.close();
		}
	});
});

describe("a learner's picture on Slack", () => {
	it("is fetched with the bot token and reaches the model; a foreign URL and a PDF are never fetched", async () => {
		const fake = await startFakeSlack({ users: [{ id: "U1", name: "bob" }] });
		const storeUrl = `sqlite://${join(dir, "slack.sqlite")}`;
		const tutor = createTutor({ model: visionModel(), store: await createSessionStore(storeUrl), maxRetries: 0 });
		const state = openStateStore(storeUrl, "slack");
		const running = await startAdapter(fake, { tutor, renderer: stubRenderer(PNG), state }, { vision: true });
		const first = openai.requests.length;
		try {
			openai.reply({ text: "Hi! What are you stuck on?" });
			await running.sender.command("/lesson", "start geometry", { user: "U1", name: "bob", channel: "C1" });
			const parent = await fake.waitFor(() => [...fake.messages.values()].find((m) => !m.threadTs), "the parent");
			const sessionId = `slack:${fake.teamId}:C1:${parent.ts}`;
			await until(() => openai.requests.length === first + 1, "the first model request");
			await tutor.idle(sessionId);
			const share = (text: string, files: unknown[]) =>
				running.sender.event({
					type: "message",
					subtype: "file_share",
					user: "U1",
					text,
					files,
					ts: running.sender.nextTs(),
					channel: "C1",
					thread_ts: parent.ts,
				});

			openai.reply({ text: "I see a triangle." });
			await share("here is my problem", [fake.shareFile({ name: "problem.png", mimetype: "image/png", data: PNG })]);
			await until(() => openai.requests.length === first + 2, "the request with the picture");
			expect(imagesIn(openai, first + 1)).toEqual([PNG_URL]);
			expect(lastUserText(openai, first + 1)).toBe("here is my problem");
			expect(fake.fileFetches.map((f) => f.token)).toEqual(["xoxb-test"]);
			await tutor.idle(sessionId);

			openai.reply({ text: "Tell me in words." }, { text: "No PDFs, fine." });
			const elsewhere = {
				id: "F999",
				name: "elsewhere.png",
				mimetype: "image/png",
				size: PNG.length,
				url_private: `${foreign.origin}/elsewhere.png`,
			};
			await share("look at this", [elsewhere]);
			await until(() => openai.requests.length === first + 3, "the request after the foreign file");
			expect(lastUserText(openai, first + 2)).toBe("look at this");
			expect(foreign.requests).toEqual([]);
			await tutor.idle(sessionId);

			await share("my notes", [fake.shareFile({ name: "notes.pdf", mimetype: "application/pdf", data: PDF })]);
			await until(() => openai.requests.length === first + 4, "the request after the PDF");
			expect(lastUserText(openai, first + 3)).toBe("my notes");
			expect(imagesIn(openai, first + 3)).toEqual([PNG_URL]);
			expect(fake.fileFetches).toHaveLength(1);
			await tutor.idle(sessionId);

			// Shared in a Slack Connect channel: the event names the file only; files.info gives its URL.
			openai.reply({ text: "A triangle again." });
			const connect = fake.shareFile({
				name: "connect.png",
				mimetype: "image/png",
				data: RED,
				channel: "C1",
				connect: true,
			});
			expect(connect).toEqual({
				id: connect.id,
				mode: "file_access",
				file_access: "check_file_info",
				created: 0,
				timestamp: 0,
				user: "",
			});
			await share("from the other org", [connect]);
			await until(() => openai.requests.length === first + 5, "the request with the Slack Connect picture");
			expect(fake.callsTo("files.info").map((c) => c.params.file)).toEqual([connect.id]);
			expect(imagesIn(openai, first + 4)).toContain(`data:image/png;base64,${RED.toString("base64")}`);
			expect(lastUserText(openai, first + 4)).toBe("from the other org");
			expect(fake.fileFetches.map((f) => f.token)).toEqual(["xoxb-test", "xoxb-test"]);
			await tutor.idle(sessionId);

			const ephemeral = fake.callsTo("chat.postEphemeral").map((c) => c.params);
			expect(ephemeral.map((p) => p.text).join("\n")).toMatch(/"elsewhere\.png" could not be downloaded/);
			expect(ephemeral.map((p) => p.text).join("\n")).toMatch(/"notes\.pdf" is not a picture the tutor can read/);
			for (const p of ephemeral) expect(p).toMatchObject({ user: "U1", channel: "C1", thread_ts: parent.ts });
			await fake.waitFor(
				() => [...fake.messages.values()].find((m) => /No PDFs, fine\./.test(m.text ?? "")),
				"the reply after the PDF",
			);
		} finally {
			await running.adapter.stop();
			await tutor.close();
			await state.close();
			await fake.close();
		}
	});
});

describe("the demo model", () => {
	it("says it cannot see pictures, downloads nothing, and takes the text (the open quiz stays open)", async () => {
		const fake = await startFakeDiscord();
		const stack = await startStack(fake, createLanguageModel({ model: "demo" }), { png: PNG });
		try {
			const learner = fake.users.learner;
			fake.slash({ user: learner, channelId: fake.ids.general, subcommand: "start", options: { topic: "fractions" } });
			const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
			const sessionId = `discord:${fake.guild.id}:${thread.id}`;
			await fake.waitFor(() => stack.events.some((e) => e.type === "quiz"), "the demo's first question", 15_000);
			await stack.tutor.idle(sessionId);
			fake.say({
				user: learner,
				channelId: thread.id,
				content: "what about this one?",
				files: [{ filename: "problem.png", contentType: "image/png", data: PNG }],
			});
			const notice = await fake.waitFor(
				() => fake.channelMessages(thread.id).find((m) => /cannot see pictures/.test(m.text)),
				"the no-vision notice",
			);
			expect(notice.text).toMatch(
				/The tutor's AI model cannot see pictures, so your picture was not sent to it\. Your text went to the tutor\./,
			);
			// A question of the learner's own: the quiz stays open, and the demo says so.
			await fake.waitFor(
				() => stack.events.some((e) => e.type === "text" && e.text === DEMO_HELD),
				"the demo's reply",
				15_000,
			);
			expect(stack.events.some((e) => e.type === "answered")).toBe(false);
			await stack.tutor.idle(sessionId);
			expect(fake.attachmentFetches).toEqual([]);
			const store = await createSessionStore(stack.storeUrl);
			try {
				const learnerMessages = ((await store.get(sessionId))?.messages ?? []).filter(
					(m: LessonMessage) => m.metadata?.kind === "learner",
				);
				expect(learnerMessages.map((m) => m.parts)).toEqual([[{ type: "text", text: "what about this one?" }]]);
			} finally {
				await store.close();
			}
		} finally {
			await stack.close();
			await fake.close();
		}
	});
});

/**
 * Math through Slack's port, as Slack carries it: a formula's PNG is uploaded and shared in
 * the lesson's thread before the card whose image block shows it (the fake is strict,
 * testkit/fakes/slack/files.ts: an image block shows only a file shared in the channel the
 * card goes to), a picture shown before is not uploaded again, one card's pictures go up
 * together with their alt text, a new picture is shown once processed, and a card whose
 * pictures Slack refuses still arrives. What a learner sees of math on every platform:
 * contract/math.test.ts.
 */

import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toBoltLogger } from "../../../src/adapters/slack/bolt-logger.ts";
import { clientOptionsFor } from "../../../src/adapters/slack/config.ts";
import { createSlackPort } from "../../../src/adapters/slack/port.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { explain, mathQuiz, PNG_MAGIC, prepared, QUADRATIC } from "../../fixtures/math-cards.ts";

describe("math cards on the Slack fake", { timeout: 30_000 }, () => {
	let fake: FakeSlack;
	let port: ReturnType<typeof createSlackPort>;
	let client: webApi.WebClient;
	let threadId = "";
	let threadTs = "";

	beforeAll(async () => {
		fake = await startFakeSlack();
		const config = { botToken: "xoxb-test", signingSecret: "s", port: 0, adminUserIds: [], apiUrl: fake.apiUrl };
		client = new webApi.WebClient("xoxb-test", clientOptionsFor(config, toBoltLogger(silentLogger)));
		port = createSlackPort(client, silentLogger);
		const intro = { topic: "algebra", learner: { id: "U1" }, startedBy: { id: "U1" }, mode: "solo" as const };
		const opened = await port.openThread({ community: fake.teamId, channelId: "C1" }, intro);
		if (!opened.ok) throw new Error(opened.message);
		threadId = opened.threadId;
		threadTs = [...fake.messages.values()].find((m) => !m.threadTs)?.ts ?? "";
	});
	afterAll(async () => {
		await fake.close();
	});

	type Block = {
		type: string;
		alt_text?: string;
		slack_file?: { id: string };
		elements?: Array<{ text?: { text: string } }>;
	};
	const lastPost = () => fake.callsTo("chat.postMessage").at(-1)!.params as { blocks: Block[]; text: string };

	it("a display formula is uploaded and shared in the thread before the card shows it; shown again, it is not uploaded again", async () => {
		await port.postCard(threadId, await prepared(explain(`The roots are:\n\n\\[${QUADRATIC}\\]`)));
		const blocks = lastPost().blocks;
		const image = blocks.find((b) => b.type === "image");
		expect(image?.alt_text).toBe(QUADRATIC);
		const upload = fake.uploads.find((u) => u.fileId === image?.slack_file?.id);
		expect(upload?.completed).toBe(true);
		// Shared in the lesson's thread before the card (Slack shows an image block's file only where it is shared).
		expect(upload).toMatchObject({ channelId: "C1", threadTs });
		expect(fake.callsTo("chat.postMessage").at(-1)?.ok).toBe(true);

		// The same formula again: the file already shared in the thread, nothing uploaded.
		const uploads = fake.callsTo("files.getUploadURLExternal").length;
		await port.postCard(threadId, await prepared(explain(`Again:\n\n\\[${QUADRATIC}\\]`)));
		expect(fake.callsTo("files.getUploadURLExternal").length).toBe(uploads);
		expect(lastPost().blocks.find((b) => b.type === "image")?.slack_file?.id).toBe(image?.slack_file?.id);
	});

	it("a math quiz's pictures go up together, shared in the thread with their alt text; its answered state uploads nothing", async () => {
		const posts = fake.callsTo("chat.postMessage").length;
		const [ts] = await port.postCard(threadId, await prepared(mathQuiz));
		// One post, accepted: not the fallback without pictures.
		expect(
			fake
				.callsTo("chat.postMessage")
				.slice(posts)
				.map((c) => c.ok),
		).toEqual([true]);
		const images = lastPost().blocks.filter((b) => b.type === "image");
		expect(images.length).toBeGreaterThan(1);
		// Each picture a PNG shared in the thread, its description for screen readers sent as alt_txt.
		for (const image of images) {
			const upload = fake.uploads.find((u) => u.fileId === image.slack_file?.id);
			expect(upload).toMatchObject({ completed: true, channelId: "C1", threadTs, altText: image.alt_text });
			expect(upload?.bytes?.subarray(0, 8).toString("hex")).toBe(PNG_MAGIC);
		}
		// The pictures of one card go up together: one file message in the thread.
		const shares = fake.callsTo("files.completeUploadExternal").at(-1)?.params.files as unknown[];
		expect(shares).toHaveLength(images.length);
		expect(fake.limitProblems()).toEqual([]);

		// Answered: the card is edited in place (Slack's answered state shows the TeX as code), uploading nothing.
		const answered = {
			type: "answered",
			sessionId: "s",
			toolCallId: "q1",
			kind: "quiz",
			quiz: (mathQuiz as { input: unknown }).input,
			result: { answer: "$3x^2$", correct: true, by: { id: "U1" } },
		} as TutorEvent;
		const uploadsBefore = fake.uploads.length;
		expect(await port.editCard(threadId, [ts ?? ""], await prepared(answered))).toBe(true);
		const update = fake.callsTo("chat.update").at(-1);
		expect(update).toMatchObject({ ok: true, params: { ts } });
		expect(JSON.stringify(update?.params.blocks)).toContain("3x^2");
		expect(fake.uploads.length).toBe(uploadsBefore);
	});

	it("waits until files.info shows a new picture processed before the card shows it (bounded)", async () => {
		let processing = 1;
		fake.override("files.info", (params) =>
			processing-- > 0 ? { body: { ok: true, file: { id: params.file, mimetype: "", channels: [] } } } : undefined,
		);
		try {
			const checks = fake.callsTo("files.info").length;
			await port.postCard(threadId, await prepared(explain(String.raw`Area: \[A = \pi r^2\]`)));
			expect(fake.callsTo("files.info").length - checks).toBe(2);
			expect(fake.callsTo("chat.postMessage").at(-1)?.ok).toBe(true);
		} finally {
			fake.override("files.info", undefined);
		}
	});

	it("the upload carries the alt text as alt_txt, at most 1,000 characters (Slack's getUploadURLExternal)", async () => {
		const before = fake.callsTo("files.getUploadURLExternal").length;
		await port.postCard(threadId, await prepared(explain(String.raw`Energy: \[E = mc^2\]`)));
		const call = fake.callsTo("files.getUploadURLExternal")[before];
		expect(call?.params.alt_txt).toBe("E = mc^2");
		expect(call?.params.alt_text).toBeUndefined();
		await port.postPicture(threadId, {
			key: "k",
			png: Buffer.from(PNG_MAGIC, "hex"),
			caption: "Map",
			outline: "x",
			alt: "a".repeat(3000),
		});
		const map = fake.uploads.filter((u) => u.filename === "lesson-plan.png").at(-1);
		expect(map?.completed).toBe(true);
		expect(map?.altText?.length).toBe(1000);
	});

	it("a math quiz whose pictures Slack refuses still arrives with its text and every button", async () => {
		// Slack answers invalid_blocks for an image block whose file it will not show (reported for files right after upload).
		fake.override("chat.postMessage", (params) =>
			JSON.stringify(params.blocks ?? "").includes('"slack_file"')
				? {
						body: {
							ok: false,
							error: "invalid_blocks",
							errors: ["invalid slack file [json-pointer:/blocks/1/slack_file]"],
						},
					}
				: undefined,
		);
		try {
			await port.postCard(threadId, await prepared(mathQuiz));
		} finally {
			fake.override("chat.postMessage", undefined);
		}
		const blocks = lastPost().blocks;
		expect(blocks.some((b) => b.type === "image")).toBe(false);
		const buttons = blocks.filter((b) => b.type === "actions").flatMap((b) => b.elements ?? []);
		expect(buttons.map((b) => b.text?.text)).toEqual([
			"A",
			"B",
			"C",
			"💡 Hint",
			"🔄 Explain another way",
			"🤷 Not sure",
		]);
		// The options' TeX is in the text, as code, for whoever cannot see a picture.
		expect(JSON.stringify(blocks)).toContain(String.raw`\frac{x^4}{4}`);
	});
});

/**
 * Math on the Slack fake through Slack's port: a display formula is uploaded as a PNG and
 * shown in an image block whose alt text is its TeX, quiz choices holding math are drawn
 * lettered in one picture with letter-only buttons, bad TeX stays text.
 */

import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toBoltLogger } from "../../../src/adapters/slack/bolt-logger.ts";
import { clientOptionsFor } from "../../../src/adapters/slack/config.ts";
import { createSlackPort } from "../../../src/adapters/slack/port.ts";
import { silentLogger } from "../../../src/core/contracts/logger.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { explain, mathQuiz, PNG_MAGIC, prepared, QUADRATIC } from "../../fixtures/math-cards.ts";

describe("math cards on the Slack fake", { timeout: 30_000 }, () => {
	let fake: FakeSlack;
	let port: ReturnType<typeof createSlackPort>;
	let threadId = "";

	beforeAll(async () => {
		fake = await startFakeSlack();
		const config = { botToken: "xoxb-test", signingSecret: "s", port: 0, adminUserIds: [], apiUrl: fake.apiUrl };
		const client = new webApi.WebClient("xoxb-test", clientOptionsFor(config, toBoltLogger(silentLogger)));
		port = createSlackPort(client, silentLogger);
		const intro = { topic: "algebra", learner: { id: "U1" }, startedBy: { id: "U1" }, mode: "solo" as const };
		const opened = await port.openThread({ community: fake.teamId, channelId: "C1" }, intro);
		if (!opened.ok) throw new Error(opened.message);
		threadId = opened.threadId;
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

	it("an explain with a display formula uploads a PNG and shows it in an image block whose alt text is the TeX", async () => {
		await port.postCard(threadId, await prepared(explain(`The roots are:\n\n\\[${QUADRATIC}\\]`)));
		const blocks = lastPost().blocks;
		const image = blocks.find((b) => b.type === "image");
		expect(image?.alt_text).toBe(QUADRATIC);
		const upload = fake.uploads.find((u) => u.fileId === image?.slack_file?.id);
		expect(upload?.completed).toBe(true);
		expect(upload?.bytes?.subarray(0, 8).toString("hex")).toBe(PNG_MAGIC);
		expect(JSON.stringify(blocks)).toContain(`\`${QUADRATIC.replaceAll("\\", "\\\\")}\``);
	});

	it("a quiz whose options hold math: one lettered picture, letter-only buttons", async () => {
		await port.postCard(threadId, await prepared(mathQuiz));
		const blocks = lastPost().blocks;
		const buttons = blocks.filter((b) => b.type === "actions").flatMap((b) => b.elements ?? []);
		expect(buttons.map((b) => b.text?.text)).toEqual([
			"A",
			"B",
			"C",
			"💡 Hint",
			"🔄 Explain another way",
			"🤷 Not sure",
		]);
		const alts = blocks.filter((b) => b.type === "image").map((b) => b.alt_text);
		expect(alts).toContain(String.raw`A. $3x^2$ B. $\frac{x^4}{4}$ C. $3x$`);
	});

	it("the upload carries the alt text as alt_txt, at most 1,000 characters (Slack's getUploadURLExternal)", async () => {
		const before = fake.callsTo("files.getUploadURLExternal").length;
		await port.postCard(threadId, await prepared(explain(`The roots are:\n\n\\[${QUADRATIC}\\]`)));
		const call = fake.callsTo("files.getUploadURLExternal")[before];
		expect(call?.params.alt_txt).toBe(QUADRATIC);
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

	it("bad TeX posts no image block and keeps the TeX as code", async () => {
		await port.postCard(threadId, await prepared(explain(String.raw`Broken: \[\frac{a\]`)));
		const blocks = lastPost().blocks;
		expect(blocks.some((b) => b.type === "image")).toBe(false);
		expect(JSON.stringify(blocks)).toContain(String.raw`\\frac{a`);
	});
});

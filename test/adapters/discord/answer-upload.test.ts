/**
 * Pictures in the Answer box, end to end: the real discord.js client against the fake Discord, the real
 * engine on a scripted mock model (MockLanguageModelV3). With a model that reads pictures, the Answer modal
 * holds an optional file upload (Label type 18 wrapping File Upload type 19, as the fake checks); a learner
 * types an answer AND uploads a PNG: the answer is recorded as the question's result and the picture reaches
 * the model as an image part after it. An upload too big for the tutor and a PDF get the thread-photo path's
 * notices while the typed answer is still recorded. With a model that does not read pictures, the modal
 * shows no upload.
 */

import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { scriptedModel, startStack, waitForAck, waitForControl } from "./helpers.ts";

const PNG = Buffer.from(
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
	"base64",
);
/** Six megabytes that start like a PNG: under Discord's 10 MiB upload limit, over the tutor's 5 MiB. */
const BIG_PNG = Buffer.concat([PNG, Buffer.alloc(6 * 1024 * 1024 - PNG.length, 0)]);
const PDF = Buffer.from("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n", "latin1");

const quiz = (id: string, question: string, correctAnswer: string) => ({
	name: "quiz",
	id,
	input: { question, correctAnswer },
});

/** The file parts the model was sent in a request's user messages, and the text of its last user message. */
function userSide(prompt: LanguageModelV3Prompt | undefined) {
	const users = (prompt ?? []).flatMap((m) => (m.role === "user" ? [m] : []));
	return {
		files: users.flatMap((m) => m.content.filter((p) => p.type === "file")),
		lastText: (users.at(-1)?.content ?? []).flatMap((p) => (p.type === "text" ? [p.text] : [])).join(""),
	};
}

describe("pictures in the Discord Answer box", { timeout: 60_000 }, () => {
	it("go to the model with the typed answer; a too-big upload and a PDF are refused and the answer still counts", async () => {
		const model = scriptedModel([
			{ text: "A first one.", calls: [quiz("q1", "What is 5 + 5?", "10")] },
			{ text: "Right, and your working is tidy.", calls: [quiz("q2", "What is 2 + 4?", "6")] },
			{ text: "Right again." },
		]);
		const fake = await startFakeDiscord();
		const stack = await startStack(fake, model, { png: PNG, config: { vision: true } });
		const answered = (id: string) =>
			stack.events.filter(
				(e): e is Extract<TutorEvent, { type: "answered" }> => e.type === "answered" && e.toolCallId === id,
			);
		try {
			const learner = fake.users.learner;
			fake.slash({ user: learner, channelId: fake.ids.general, subcommand: "start", options: { topic: "sums" } });
			const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
			const card = await waitForControl(fake, thread.id, "lh:open:q1");

			const open = fake.click({ user: learner, messageId: card.id, customId: "lh:open:q1" });
			await waitForAck(fake, open.token);
			expect(open.responseType).toBe(9);
			expect(open.modal?.components.at(-1)).toMatchObject({
				type: 18,
				label: "Photo of your working (optional)",
				component: {
					type: 19,
					custom_id: "lh:file:q1",
					min_values: 0,
					max_values: 4,
					required: false,
					file_types: ["image"],
				},
			});
			const submit = fake.submitModal({
				user: learner,
				opened: open,
				values: { "lh:text:q1": "10" },
				files: { "lh:file:q1": [{ filename: "working.png", contentType: "image/png", data: PNG }] },
			});
			await waitForAck(fake, submit.token);
			expect(submit.responseType).toBe(6);
			await fake.waitFor(() => model.doStreamCalls.length >= 2 || undefined, "the request after the answer");
			expect(answered("q1")[0]?.result).toMatchObject({ answer: "10", correct: true });
			const second = userSide(model.doStreamCalls[1]?.prompt);
			expect(second.files).toEqual([
				{ type: "file", mediaType: "image/png", filename: "working.png", data: PNG.toString("base64") },
			]);
			expect(second.lastText).toBe("(my working for the answer above)");
			expect(fake.attachmentFetches).toHaveLength(1);
			expect(fake.attachmentFetches[0]?.authorized).toBe(false); // the CDN's links are signed: no token leaves

			// A second answer with a picture too big for the tutor and a PDF: both refused, the answer recorded.
			const next = await waitForControl(fake, thread.id, "lh:open:q2");
			const again = fake.click({ user: learner, messageId: next.id, customId: "lh:open:q2" });
			await waitForAck(fake, again.token);
			const notices = fake.ephemeralsFor(learner).length;
			fake.submitModal({
				user: learner,
				opened: again,
				values: { "lh:text:q2": "6" },
				files: {
					"lh:file:q2": [
						{ filename: "scan.png", contentType: "image/png", data: BIG_PNG },
						{ filename: "notes.pdf", contentType: "application/pdf", data: PDF },
					],
				},
			});
			await fake.waitFor(() => model.doStreamCalls.length >= 3 || undefined, "the request after the second answer");
			expect(answered("q2")[0]?.result).toMatchObject({ answer: "6", correct: true });
			const notice = await fake.waitFor(
				() =>
					fake
						.ephemeralsFor(learner)
						.slice(notices)
						.find((m) => /too big/.test(m.text)),
				"the notice about the pictures",
			);
			expect(notice.text).toBe(
				'"scan.png" is too big (6.0 MB): pictures up to 5.0 MB reach the tutor. ' +
					'"notes.pdf" is not a picture the tutor can read (PNG, JPEG, GIF or WebP only). ' +
					"Your text went to the tutor.",
			);
			// Nothing new went to the model: the first picture (still in its window) and no "working" message.
			const third = userSide(model.doStreamCalls[2]?.prompt);
			expect(third.files).toEqual(second.files);
			expect(third.lastText).toBe("(my working for the answer above)");
			expect(fake.attachmentFetches).toHaveLength(1); // neither refused file was downloaded
			await stack.tutor.idle(`discord:${fake.guild.id}:${thread.id}`);
			expect(stack.logger.errors()).toEqual([]);
			expect(fake.problems()).toEqual([]);
		} finally {
			await stack.close();
			await fake.close();
		}
	});

	it("shows no upload when the model does not read pictures", async () => {
		const model = scriptedModel([{ text: "A first one.", calls: [quiz("q1", "What is 5 + 5?", "10")] }]);
		const fake = await startFakeDiscord();
		const stack = await startStack(fake, model, { png: PNG });
		try {
			const learner = fake.users.learner;
			fake.slash({ user: learner, channelId: fake.ids.general, subcommand: "start", options: { topic: "sums" } });
			const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
			const card = await waitForControl(fake, thread.id, "lh:open:q1");
			const open = fake.click({ user: learner, messageId: card.id, customId: "lh:open:q1" });
			await waitForAck(fake, open.token);
			expect(open.responseType).toBe(9);
			expect(JSON.stringify(open.modal)).not.toContain("lh:file:");
			expect(open.modal?.components.map((c) => (c as { type: number }).type)).toEqual([10, 18]);
			// A client cannot upload to a modal without an upload.
			expect(() =>
				fake.submitModal({
					user: learner,
					opened: open,
					values: { "lh:text:q1": "10" },
					files: { "lh:file:q1": [{ filename: "working.png", contentType: "image/png", data: PNG }] },
				}),
			).toThrow(/no file upload/);
			expect(fake.problems()).toEqual([]);
		} finally {
			await stack.close();
			await fake.close();
		}
	});
});

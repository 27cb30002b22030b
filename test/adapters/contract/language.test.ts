/**
 * Lessons in the learner's language, on each chat platform (the terminal's language: terminal/playground-language
 * .test.ts). A member whose client is German (Discord's interaction locale; Slack's users.info locale) gets a
 * German lesson (intro, cards, buttons, form, notices, closing line) and the model is told to teach in German;
 * `language:` wins; an unsupported locale falls back to English with the system prompt unchanged. A refusal uses
 * the clicker's locale on Discord and the lesson's language on Slack (Slack's clicks carry no locale). A German
 * lesson's struggle words and a German admin's vote settings are German.
 */

import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { MockLanguageModelV3 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";
import { PROBER_PROMPT } from "../../../src/agent/prompts/index.ts";
import { replyStream, type ScriptedReply, scriptedModel } from "../../../testkit/model-stream.ts";
import { assessmentInput, planMermaid, probeQuiz } from "../../fixtures/lesson-script.ts";
import { CHATS, type PersonKey, useChat } from "./chat.ts";

const requests: LanguageModelV3CallOptions[] = [];
let n = 0;
let script: ReturnType<typeof scriptedModel> | undefined;
/** Every request gets a free-answer quiz `q<n>` (an "Answer" button), unless a script is set. */
const model = new MockLanguageModelV3({
	doStream: async (options) => {
		if (script) return script.doStream(options);
		requests.push(options);
		n++;
		return {
			stream: replyStream({
				calls: [{ name: "quiz", id: `q${n}`, input: { question: `Frage ${n}?`, correctAnswer: "42" } }],
			}),
		};
	},
});
const systemOf = (call: LanguageModelV3CallOptions | undefined) => {
	const system = call?.prompt.find((m) => m.role === "system");
	return system?.role === "system" ? system.content : "";
};
const germanCheck: ScriptedReply[] = [
	{ calls: [{ name: "quiz", input: probeQuiz, id: "p1" }] },
	{ calls: [{ name: "probe_done", input: assessmentInput, id: "pd" }] },
	{ calls: [{ name: "plan_init", input: { mermaid: planMermaid }, id: "plan" }] },
	{
		text: "Jetzt prüfen wir es.",
		calls: [
			{
				name: "quiz",
				id: "c1",
				input: {
					type: "check",
					nodeId: "unlike",
					question: "Was ist 1/2 + 1/4?",
					options: ["2/6", "3/4", "1/6"],
					correctAnswer: "3/4",
				},
			},
		],
	},
	{ text: "Gut." },
];

describe.each(CHATS)("lessons in the learner's language on %s", { timeout: 60_000 }, (name) => {
	const handle = useChat(name, { model, locales: { learner: "de", other: "ja", admin: "de", dan: "en" } });
	beforeAll(() => {
		script = undefined; // the quiz-per-request model again (the struggle case sets a script)
	});
	/** Intro texts (Discord's first thread message; Slack's parent message) per language. */
	const intro = {
		discord: ["eine Lektion für <@", "una lección para <@", "a lesson for <@"],
		slack: ["Lektion: Brüche addieren", "Lección: fracciones", "Lesson: fractions"],
	}[name];
	const startAs = async (who: PersonKey, topic: string, language?: string) => {
		const { chat } = handle;
		const started = await chat.start(who, topic, language ? { language } : {});
		await chat.backend.tutor.idle(started.sessionId);
		const quiz = await chat.card(started.sessionId, `q${n}`);
		const session = await chat.backend.tutor.getSession(started.sessionId);
		return { ...started, quiz, language: session?.language, system: systemOf(requests.at(-1)) };
	};
	const refusal = async (who: PersonKey, card: Awaited<ReturnType<typeof startAs>>["quiz"], pattern: RegExp) => {
		const { chat } = handle;
		const before = chat.notices(who).length;
		await chat.click(who, card, card.controls[0] ?? "");
		return chat
			.waitFor(() => chat.notices(who).slice(before)[0], `the refusal to ${who}`)
			.then((text) => expect(text).toMatch(pattern));
	};

	it("a German member starts a German lesson, and the model is told to teach in German", async () => {
		const { chat } = handle;
		const { sessionId, reply, quiz, language, system } = await startAs("learner", "Brüche addieren");
		expect(chat.find(new RegExp(intro[0] ?? ""))).not.toEqual([]);
		if (name === "discord") expect(chat.posts(sessionId)[0]).toContain("Einzellektion: nur <@");
		else expect(chat.find(/Lektion beenden/)).not.toEqual([]);
		expect(reply.text).toMatch(/Brüche addieren.* ist bereit/);
		expect(quiz.text).toMatch(/\*+Quiz\*+ · _?Antworte so gut du kannst/);
		expect(quiz.text).toContain("Tippe deine Antwort.");
		expect(quiz.labels[0]).toBe("Antworten");
		expect(system.startsWith(PROBER_PROMPT)).toBe(true);
		expect(system).toContain("Lesson language: German (Deutsch, `de`).");
		expect(language).toBe("de");
		// Slack tells a member's language only when asked for it.
		if (name === "slack") expect(chat.calls("users.info").some((c) => String(c.include_locale) === "true")).toBe(true);
		expect((await chat.form("learner", quiz, quiz.controls[0] ?? "")).split("\n")[0]).toBe("Deine Antwort");
		// A member whose client is English: English on Discord, the lesson's German on Slack.
		await refusal("dan", quiz, name === "discord" ? /^This is <@\d+>'s solo lesson/ : /^Das ist die Einzellektion/);
		// One whose client is Japanese (no catalogue): the lesson's German everywhere.
		await refusal("other", quiz, /^Das ist die Einzellektion/);
		await chat.command("learner", "end", sessionId);
		await chat.waitFor(() => chat.find(/Starte jederzeit eine neue Lektion/)[0], "the German closing line");
	});

	it("the explicit language option wins over the member's language", async () => {
		const { chat } = handle;
		const { sessionId, quiz, language, system } = await startAs("learner", "fracciones", "es");
		expect(chat.find(new RegExp(intro[1] ?? ""))).not.toEqual([]);
		expect(quiz.labels[0]).toBe("Responder");
		expect(system).toContain("Lesson language: Spanish (Español, `es`).");
		expect(language).toBe("es");
		await chat.command("learner", "end", sessionId);
	});

	it("an unsupported language falls back to English, with the system prompt unchanged", async () => {
		const { chat } = handle;
		const { quiz, language, system } = await startAs("other", "fractions");
		expect(chat.find(new RegExp(intro[2] ?? ""))).not.toEqual([]);
		expect(quiz.labels[0]).toBe("Answer");
		expect(system).toBe(PROBER_PROMPT);
		expect(language).toBe("en");
		// An unsupported `language:` is refused before any lesson (Discord offers a fixed list of choices instead).
		if (name === "slack") {
			const lessons = chat.find(/Lesson: |Lektion: |Lección: /).length;
			expect((await chat.command("other", "start language:fr fractions")).text).toMatch(
				/I don't have `fr`; lessons run in `en` \(English\), `de` \(Deutsch\), `es` \(Español\)\./,
			);
			expect(chat.find(/Lesson: |Lektion: |Lección: /)).toHaveLength(lessons);
		}
	});

	it("a German lesson's struggle words: Nicht ganz, with German help buttons", async () => {
		const { chat } = handle;
		script = scriptedModel(germanCheck);
		const { sessionId } = await chat.start("learner", "Brüche");
		const p1 = await chat.card(sessionId, "p1");
		expect(p1.labels).toEqual(expect.arrayContaining(["🤷 Weiß nicht", "💡 Hinweis"]));
		await chat.click("learner", p1, "lh:pick:p1:1");
		const c1 = await chat.card(sessionId, "c1");
		expect(c1.labels).toEqual(expect.arrayContaining(["💡 Hinweis", "🤷 Weiß nicht"]));
		await chat.click("learner", c1, "lh:pick:c1:0");
		const missed = await chat.waitFor(() => chat.view(c1).text.includes("Nicht ganz") && chat.view(c1), "Nicht ganz");
		expect(missed.text).not.toContain("Not quite");
		expect(missed.labels).toEqual(["🔁 Noch einmal", "💡 Hinweis", "👀 Antwort zeigen"]);
		await chat.backend.tutor.idle(sessionId);
	});

	it("a German admin's vote settings and a German member's refusal are German", async () => {
		const { chat } = handle;
		expect((await chat.command("admin", "config vote_seconds 30")).text).toContain("Gespeichert.");
		const saved = (await chat.command("admin", "config vote_names on")).text;
		expect(saved).toContain(
			"• Gruppenabstimmungen: offen 30 s nach der ersten Stimme; das Ergebnis nennt die Abstimmenden",
		);
		expect(saved).not.toContain("Group votes");
		const denied = (await chat.command("learner", "config vote_seconds 20")).text;
		expect(denied).not.toMatch(/Only admins|Manage Server/);
		if (name === "discord") expect(denied).toContain("(Server verwalten)");
		expect(chat.problems()).toEqual([]);
	});
});

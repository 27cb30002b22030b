/**
 * Only the platform ports parse thread ids (a lesson's session id, `<platform>:<part>…`): code outside
 * src/adapters/{discord,slack,terminal}/ asks the format's owner (core/contracts/thread-id.ts: platformOf,
 * communityOf, splitThreadId) and never splits, slices or pattern-matches an id itself. Read from the
 * source by pattern: a method that takes a string apart called on something named `…threadId`/`…sessionId`,
 * a regex run on one, or a prefix test or regex for a platform's prefix (`"slack:"`, `` `${platform}:` ``).
 * Other formats that use colons (places `<community>:<channel>`, learner keys, component ids, data URLs)
 * are not thread ids and are not read here.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { filesUnder, shown, src } from "./source.ts";

/** The one module outside the ports that owns the id format. */
const OWNER = "core/contracts/thread-id.ts";
const PORTS = ["discord", "slack", "terminal"].map((platform) => `adapters/${platform}/`);

const ID = String.raw`\b[\w$]*(?:thread|session)Id\b`;
const PARSING: readonly RegExp[] = [
	// threadId.split(":"), sessionId.startsWith(…), record.sessionId.indexOf(":"), …
	new RegExp(
		String.raw`${ID}\??\.(?:split|indexOf|lastIndexOf|startsWith|endsWith|match|matchAll|slice|substring|substr|replace|includes)\(`,
		"i",
	),
	// /^slack:/.test(threadId)
	new RegExp(String.raw`\.(?:test|exec)\(\s*[\w$.?]*?${ID}`, "i"),
	// x.startsWith("slack:"), x.startsWith(`${platform}:`)
	/\.(?:startsWith|endsWith|indexOf|includes)\(\s*(?:["'`](?:discord|slack|terminal):|`\$\{[^}]*\}:)/,
	// a regex literal anchored at a platform's prefix
	/\/\^\(?(?:\?:)?(?:discord|slack|terminal)\b/,
];

/** The lines of `code` (comments left out) that take a thread id apart. */
function idParsing(code: string): string[] {
	return code
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => !/^(?:\/\/|\/\*|\*)/.test(line) && PARSING.some((pattern) => pattern.test(line)));
}

describe("thread ids", () => {
	it("are parsed only by the platform ports and the format's owner", () => {
		const violations = filesUnder(src)
			.filter((file) => {
				const where = relative(src, file);
				return where !== OWNER && !PORTS.some((port) => where.startsWith(port));
			})
			.flatMap((file) => idParsing(readFileSync(file, "utf8")).map((line) => `${shown(file)}: ${line}`));
		expect(violations).toEqual([]);
	});

	it("the reader sees each way of taking an id apart (so the rule above can fail)", () => {
		const parsing = [
			'const [platform, community] = sessionId.split(":");',
			"const end = record.sessionId.indexOf(':');",
			// biome-ignore lint/suspicious/noTemplateCurlyInString: source text the reader is tested on, not a template
			"if (!where?.threadId.startsWith(`${port.name}:`)) continue;",
			"if (event.sessionId.startsWith(prefix)) return;",
			"const ok = /^slack:[A-Z0-9]+:/.test(threadId);",
			'if (id.startsWith("discord:")) return;',
			"const m = SLACK_ID.exec(event.threadId);",
		];
		for (const line of parsing) expect(idParsing(line), line).toEqual([line]);
		const notIds = [
			'const placeCommunity = place.split(":")[0] ?? community;',
			'const mediaType = header.split(";")[0]?.split(":")[1];',
			'logger.warn({ err: error }, "discord: GET /gateway/bot failed");',
			' * const [platform] = sessionId.split(":");',
			"// threadId.split(':') lives in the ports",
			"const id = encodeSlackThreadId({ teamId, channelId, threadTs });",
		];
		for (const line of notIds) expect(idParsing(line), line).toEqual([]);
		// The owner does take ids apart: the rule would see it if it were not exempt.
		expect(idParsing(readFileSync(join(src, OWNER), "utf8"))).not.toEqual([]);
	});
});

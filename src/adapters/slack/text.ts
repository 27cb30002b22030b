/**
 * Slack's message text as a person wrote it. Slack escapes `&`, `<` and `>` in the text it sends
 * (`&amp;`, `&lt;`, `&gt;`: its formatting reference, "Escaping text") and writes links, channels,
 * mentions and special mentions in control sequences (`<https://…|label>`, `<#C…|general>`,
 * `<@U…>`, `<!here>`, `<!subteam^S…|@team>`, `<!date^…|fallback>`). Decoded once, at the edge, before
 * anyone reads it: the tutor reads `1/2 < 3/4`, the judge `x > 3`, a lesson is named `C++ & Rust`.
 * One linear scan (text from outside never meets a pattern that can backtrack).
 */

/** The readable form of one control sequence's body (what stands between `<` and `>`). */
function controlText(body: string, mentions: "drop" | "keep"): string {
	const bar = body.indexOf("|");
	const target = bar >= 0 ? body.slice(0, bar) : body;
	const label = bar >= 0 ? body.slice(bar + 1) : "";
	if (target.startsWith("@")) return mentions === "drop" ? " " : label !== "" ? `@${label}` : target;
	if (target.startsWith("#")) return label !== "" ? `#${label}` : target;
	if (target.startsWith("!")) {
		if (label !== "") return label; // <!subteam^S…|@team>, <!date^…|fallback>
		const word = target.slice(1).split("^")[0] ?? "";
		return word === "here" || word === "channel" || word === "everyone" ? `@${word}` : "";
	}
	if (target.startsWith("mailto:")) return label !== "" ? label : target.slice("mailto:".length);
	// A link: its label and where it goes, or the address alone.
	return label !== "" && label !== target ? `${label} (${target})` : target;
}

/** `&lt;`, `&gt;`, `&amp;` back to `<`, `>`, `&` (the only three Slack escapes), in one pass. */
export function unescapeSlack(text: string): string {
	if (!text.includes("&")) return text;
	let out = "";
	for (let i = 0; i < text.length; i++) {
		if (text[i] === "&") {
			if (text.startsWith("&lt;", i)) {
				out += "<";
				i += 3;
				continue;
			}
			if (text.startsWith("&gt;", i)) {
				out += ">";
				i += 3;
				continue;
			}
			if (text.startsWith("&amp;", i)) {
				out += "&";
				i += 4;
				continue;
			}
		}
		out += text[i];
	}
	return out;
}

/**
 * Slack text as plain text: control sequences made readable (user mentions dropped with `mentions:
 * "drop"`, the default: they address the bot or a member, not the lesson), then the escapes undone.
 * Whitespace is tidied.
 */
export function slackTextToPlain(text: string, options: { mentions?: "drop" | "keep" } = {}): string {
	const mentions = options.mentions ?? "drop";
	let out = "";
	let i = 0;
	while (i < text.length) {
		const open = text.indexOf("<", i);
		if (open < 0) {
			out += unescapeSlack(text.slice(i));
			break;
		}
		const close = text.indexOf(">", open + 1);
		if (close < 0) {
			out += unescapeSlack(text.slice(i));
			break;
		}
		out += unescapeSlack(text.slice(i, open));
		out += unescapeSlack(controlText(text.slice(open + 1, close), mentions));
		i = close + 1;
	}
	return out.replace(/\s+/g, " ").trim();
}

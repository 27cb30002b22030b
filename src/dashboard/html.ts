/**
 * The dashboard's HTML: one escaping function every value goes through, the
 * page frame (navigation, sign-out form with its CSRF token), and the one
 * stylesheet (served from /static, so the Content-Security-Policy allows no
 * inline style and no script at all). Text from learners and the model only
 * ever reaches a page through `esc` (element text and quoted attributes alike).
 */

/** A piece of HTML that is already safe (built by these helpers); plain strings are escaped. */
export class Html {
	constructor(readonly text: string) {}
	toString(): string {
		return this.text;
	}
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe for element content and quoted attribute values. */
export function esc(value: string | number): string {
	return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** A template tag: interpolated strings and numbers are escaped, Html and Html[] are kept, undefined is dropped. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
	let out = strings[0] ?? "";
	for (let i = 0; i < values.length; i++) out += piece(values[i]) + (strings[i + 1] ?? "");
	return new Html(out);
}

function piece(value: unknown): string {
	if (value === undefined || value === null || value === false) return "";
	if (value instanceof Html) return value.text;
	if (Array.isArray(value)) return value.map(piece).join("");
	return esc(typeof value === "number" ? value : String(value));
}

/** What the frame needs: the community's pages and the sign-out form. */
export interface Frame {
	title: string;
	/** `/c/<platform>/<community>`: the base of the community's pages. */
	base?: string;
	community?: string;
	/** The session's CSRF token (the sign-out form carries it). */
	csrf?: string;
	/** The current section, for aria-current. */
	section?: "overview" | "stuck" | "lessons";
}

/** A whole page. */
export function page(frame: Frame, body: Html): string {
	const nav = frame.base
		? html`<nav aria-label="Dashboard"><ul>
${(["overview", "stuck", "lessons"] as const).map(
	(s) =>
		html`<li><a href="${frame.base}/${s === "overview" ? "" : s}"${frame.section === s ? new Html(' aria-current="page"') : ""}>${SECTION_NAMES[s]}</a></li>`,
)}
<li><a href="${frame.base}/export.csv">CSV export</a></li>
</ul>
${frame.csrf ? html`<form method="post" action="/signout"><input type="hidden" name="csrf" value="${frame.csrf}"><button type="submit">Sign out</button></form>` : ""}
</nav>`
		: "";
	return `<!doctype html>
${
	html`<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · learnharness</title><link rel="stylesheet" href="/static/dashboard.css"></head>
<body><header><p class="brand">learnharness${frame.community ? html` · <span class="community">${frame.community}</span>` : ""}</p>${nav}</header>
<main id="main"><h1>${frame.title}</h1>
${body}</main></body></html>`.text
}
`;
}

const SECTION_NAMES = { overview: "Overview", stuck: "Where the group gets stuck", lessons: "Lessons" } as const;

/** The stylesheet: readable from a 320 px phone up; colours with a text label beside each (never colour alone). */
export const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f6f7f9}
header{background:#1f2a44;color:#fff;padding:.75rem 1rem}
header a{color:#fff}
.brand{margin:0 0 .5rem;font-weight:600;overflow-wrap:anywhere}
nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
nav a[aria-current=page]{font-weight:700;text-decoration-thickness:3px}
nav form{margin:.5rem 0 0}
button{font:inherit;padding:.4rem .9rem;border-radius:.3rem;border:1px solid #1f2a44;background:#fff;color:#1f2a44;cursor:pointer}
main{padding:1rem;max-width:72rem;margin:0 auto}
h1{font-size:1.5rem;margin:.5rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem;overflow-wrap:anywhere}
a{color:#0b57d0}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem;margin:0;padding:0}
.cards div{background:#fff;border:1px solid #d0d5dd;border-radius:.4rem;padding:.6rem .8rem}
.cards dt{font-size:.85rem;color:#4a5261}
.cards dd{margin:0;font-size:1.4rem;font-weight:600;overflow-wrap:anywhere}
.table-wrap{overflow-x:auto;background:#fff;border:1px solid #d0d5dd;border-radius:.4rem}
table{border-collapse:collapse;width:100%;min-width:20rem}
th,td{text-align:left;padding:.4rem .6rem;border-bottom:1px solid #e3e6eb;vertical-align:top;overflow-wrap:anywhere}
th{font-size:.85rem;color:#303846;background:#eef0f4}
td.num,th.num{text-align:right;white-space:nowrap}
svg{max-width:100%;height:auto;display:block}
.bar{min-width:7rem}
.legend{display:flex;flex-wrap:wrap;gap:.25rem 1rem;padding:0;list-style:none;font-size:.9rem}
.swatch{display:inline-block;width:.9rem;height:.9rem;border-radius:.15rem;margin-right:.3rem;vertical-align:-.1rem;border:1px solid #555}
.learned{background:#2e7d32}.shaky{background:#f2b705}.notyet{background:#c5cad3}
ol.transcript{list-style:none;padding:0;margin:0}
ol.transcript>li{background:#fff;border:1px solid #d0d5dd;border-radius:.4rem;padding:.6rem .8rem;margin:0 0 .6rem}
ol.transcript>li.learner{border-left:4px solid #0b57d0}
ol.transcript>li.tutor{border-left:4px solid #1f2a44}
.who{font-size:.85rem;color:#4a5261;margin:0 0 .25rem}
.text{white-space:pre-wrap;overflow-wrap:anywhere;margin:0}
.verdict{font-weight:600}
.muted{color:#4a5261}
.pager{display:flex;gap:1rem;margin:1rem 0}
`;

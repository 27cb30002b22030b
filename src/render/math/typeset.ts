/**
 * TeX -> SVG with MathJax 4 in Node (TeX input, SVG output with the New
 * Computer Modern font drawn as paths, so no font files are needed), and
 * SVG -> PNG with resvg (a native rasterizer shipped in the npm package).
 * Everything loads from node_modules on first use; nothing touches the
 * network. Bad TeX throws a TexError with MathJax's message.
 */

/**
 * Why a formula has no picture: bad TeX; an engine that did not load (or a busy sandbox: transient);
 * a formula too long; one that ran out of its time or memory in the sandbox, or whose worker died
 * on it (sandbox.ts).
 */
export type TexErrorCode = "tex" | "engine" | "too-big" | "timeout" | "memory" | "crashed";

/** A TeX error (MathJax's message), or an engine that failed to load. */
export class TexError extends Error {
	constructor(
		readonly code: TexErrorCode,
		message: string,
		options?: { cause?: unknown },
	) {
		super(message, options);
		this.name = "TexError";
	}
}

/** One typeset formula: a PNG at 2x and its size in CSS pixels. */
export interface MathPng {
	png: Buffer;
	width: number;
	height: number;
}

/** Pixels per ex at 1x (MathJax sizes its SVG in ex). */
const EX_PX = 9;
/** Padding around a formula at 1x. */
const PAD = 8;
/** Largest picture side at 1x; a wider formula is scaled down to fit (then its PNG stays readable at 2x). */
const MAX_SIDE = 1600;

/** MathJax's bound on macro substitutions per parser (its default is 1,000 with `\def` in mind). */
export const TEX_MAX_MACROS = 200;
/** MathJax's bound on its TeX buffer, in characters (its default is 5 KiB). */
export const TEX_MAX_BUFFER = 4_096;

type Convert = (tex: string, display: boolean) => string;

let engine: Promise<Convert> | undefined;

async function loadEngine(): Promise<Convert> {
	const [{ mathjax }, { TeX }, { SVG }, { liteAdaptor }, { RegisterHTMLHandler }, { MathJaxNewcmFont }] =
		await Promise.all([
			import("@mathjax/src/js/mathjax.js"),
			import("@mathjax/src/js/input/tex.js"),
			import("@mathjax/src/js/output/svg.js"),
			import("@mathjax/src/js/adaptors/liteAdaptor.js"),
			import("@mathjax/src/js/handlers/html.js"),
			import("@mathjax/mathjax-newcm-font/js/svg.js"),
		]);
	await Promise.all([
		import("@mathjax/src/js/input/tex/base/BaseConfiguration.js"),
		import("@mathjax/src/js/input/tex/ams/AmsConfiguration.js"),
	]);
	const adaptor = liteAdaptor();
	RegisterHTMLHandler(adaptor);
	const tex = new TeX({
		// No `newcommand` (\def, \newcommand, \let): a macro the formula defines can expand exponentially
		// (a 1,900-character one took minutes and gigabytes), and the lessons never need one.
		packages: ["base", "ams"],
		// MathJax's own bounds, low: built-in macro substitutions per parser, and the TeX buffer they grow
		// (twice the longest formula: room for the choices' escaping, none for runaway expansion).
		maxMacros: TEX_MAX_MACROS,
		maxBuffer: TEX_MAX_BUFFER,
		// MathJax draws errors in red by default; we want the message, and the TeX as text instead.
		formatError: (_jax: unknown, error: Error) => {
			throw new TexError("tex", error.message);
		},
	});
	// No line breaks inside inline math: MathJax 4 breaks an inline formula into one <svg> per piece (so a
	// browser can wrap it with the text), and a picture of it drew every piece at one spot, glyphs stacked.
	const svg = new SVG({ fontData: MathJaxNewcmFont, fontCache: "local", linebreaks: { inline: false } });
	const doc = mathjax.document("", { InputJax: tex, OutputJax: svg });
	return (source, display) => {
		const node = doc.convert(source, { display, em: 16, ex: 8, containerWidth: 80 * 16 });
		return adaptor.innerHTML(node);
	};
}

/** MathJax, loaded once per process (module state: the engine is immutable once built, like a loaded library). */
function mathEngine(): Promise<Convert> {
	engine ??= loadEngine().catch((error: unknown) => {
		engine = undefined;
		throw new TexError("engine", `MathJax did not load: ${String(error)}`, { cause: error });
	});
	return engine;
}

/** Loads MathJax and resvg now (the sandbox's worker does it before it takes formulas). Throws TexError. */
export async function loadMathEngine(): Promise<void> {
	await mathEngine();
	try {
		await import("@resvg/resvg-js");
	} catch (error) {
		throw new TexError("engine", `resvg did not load: ${String(error)}`, { cause: error });
	}
}

/** Size attributes of MathJax's root <svg> ("12.3ex"), in pixels at 1x. */
function sizeOf(svg: string): { width: number; height: number } {
	const head = svg.slice(0, svg.indexOf(">") + 1);
	const num = (name: string): number => {
		const m = new RegExp(`\\s${name}="([0-9.]+)ex"`).exec(head);
		return m ? Number(m[1]) * EX_PX : Number.NaN;
	};
	return { width: num("width"), height: num("height") };
}

/** TeX -> SVG text (MathJax). Throws TexError. */
export async function texToSvg(tex: string, display: boolean): Promise<string> {
	const convert = await mathEngine();
	try {
		return convert(tex, display);
	} catch (error) {
		if (error instanceof TexError) throw error;
		throw new TexError("tex", error instanceof Error ? error.message : String(error), { cause: error });
	}
}

/** SVG from MathJax -> PNG at 2x on white with padding (resvg). Throws TexError. */
export async function svgToPng(svg: string): Promise<MathPng> {
	const size = sizeOf(svg);
	if (!Number.isFinite(size.width) || !Number.isFinite(size.height)) throw new TexError("tex", "MathJax gave no size");
	const fit = Math.min(1, MAX_SIDE / Math.max(size.width, size.height, 1));
	const width = Math.ceil(size.width * fit) + PAD * 2;
	const height = Math.ceil(size.height * fit) + PAD * 2;
	// The formula sits in an outer SVG with the padding; its own width/height become pixels. Rewritten in the root
	// tag alone, one attribute at a time: one regex over "([^>]*?)\swidth=…([^>]*?)\sheight=" could backtrack.
	const headEnd = svg.indexOf(">") + 1;
	const head = svg
		.slice(0, headEnd)
		.replace(/^<svg\b/, `<svg x="${PAD}" y="${PAD}"`)
		.replace(/\swidth="[^"]*"/, ` width="${(size.width * fit).toFixed(2)}"`)
		.replace(/\sheight="[^"]*"/, ` height="${(size.height * fit).toFixed(2)}"`);
	const inner = head + svg.slice(headEnd);
	const outer = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><rect width="100%" height="100%" fill="#ffffff"/>${inner}</svg>`;
	let Resvg: typeof import("@resvg/resvg-js").Resvg;
	try {
		({ Resvg } = await import("@resvg/resvg-js"));
	} catch (error) {
		throw new TexError("engine", `resvg did not load: ${String(error)}`, { cause: error });
	}
	try {
		const drawn = new Resvg(outer, { fitTo: { mode: "zoom", value: 2 }, font: { loadSystemFonts: false } }).render();
		// Copied into a plain Buffer: the addon's buffer trips undici's multipart encoder under vitest ("action is not a function").
		const png = Buffer.from(drawn.asPng());
		return { png, width, height };
	} catch (error) {
		throw new TexError("engine", `resvg could not draw the formula: ${String(error)}`, { cause: error });
	}
}

/** TeX -> PNG. Throws TexError ("tex": bad TeX; "engine": MathJax or resvg unavailable). */
export async function texToPng(tex: string, display: boolean): Promise<MathPng> {
	return svgToPng(await texToSvg(tex, display));
}

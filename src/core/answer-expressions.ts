/**
 * Algebraic equivalence of short math answers: `2cos(2x)` is `2*cos(2*x)`,
 * `x^2+2x+1` is `(x+1)^2`, `√2/2` is `1/√2`, `y = 2x+1` is `2x+1`. mathjs
 * parses the text (implicit multiplication, precedence); the tree is then
 * checked against a small allowlist (numbers, one-letter variables, `pi` and
 * `e`, + - * / ^, and a few one-argument functions) and compared by
 * evaluating both sides, with our own evaluator, at a fixed set of sample
 * points: mathjs never evaluates learner text. TeX as models write it
 * (`\frac{1}{2}`, `\sqrt{x}`, `e^{2x}`) is read as the same math. Bounded: at
 * most MAX_EXPRESSION_CHARS characters, MAX_NODES nodes and MAX_DEPTH levels a
 * side, SAMPLES points; so an answer costs a few thousand steps at most.
 *
 * The verdict is `same`, `different` or undefined (not math, or not decidable).
 * `different` is given only when it cannot be a notation slip: both sides are
 * expressions (not equations) in the same variables, and neither is written in
 * a form readers take two ways (`1/2x`, `e^2x`, `x^1/2`, `log` against `ln`,
 * big-O). Numbers without variables are never `different` here (degrees
 * or radians? the number judge and the grader decide), and an arithmetic
 * expression typed for a bare number is not its value (`3*4` for `12`).
 */

import type { MathNode } from "mathjs";
import type { Locale } from "../i18n/index.ts";
import { parse } from "./math-engine.ts";

/** Longest side looked at: an answer, not a derivation. */
export const MAX_EXPRESSION_CHARS = 120;
/** Most tree nodes a side may have. */
const MAX_NODES = 80;
/** Deepest nesting a side may have. */
const MAX_DEPTH = 24;
/** Points both sides are evaluated at. */
const SAMPLES = 12;
/** Points where both sides must be defined for a verdict. */
const MIN_POINTS = 4;
const RELATIVE = 1e-8;

/** An expression as our evaluator reads it. */
type Expr =
	| { k: "num"; v: number }
	| { k: "var"; name: string }
	| { k: "const"; v: number }
	| { k: "op"; op: "+" | "-" | "*" | "/" | "^"; a: Expr; b: Expr }
	| { k: "neg"; a: Expr }
	| { k: "fn"; name: string; a: Expr };

/** One side read: its expression (or both sides of an equation), its variables and how it may be read two ways. */
interface MathSide {
	expr?: Expr;
	equation?: { left: Expr; right: Expr; named?: string };
	vars: Set<string>;
	/** Written in a form read two ways (`1/2x`): no verdict either way. */
	ambiguous: boolean;
	/** Big-O: the same inside is the same answer; another inside may still be (O(2n) = O(n)). */
	bigO: boolean;
	/** The logarithm spellings used (`log`, `ln`, `log10`, `log2`). */
	logs: Set<string>;
	/** A plain number (no operator, function or variable). */
	plain: boolean;
	/** Functions and powers it holds (`sin(30)`, `√16`, `2^3`): its numbers are not its value. */
	calls: number;
}

const FUNCTIONS: Record<string, (x: number) => number> = {
	sin: Math.sin,
	cos: Math.cos,
	tan: Math.tan,
	cot: (x) => 1 / Math.tan(x),
	sec: (x) => 1 / Math.cos(x),
	csc: (x) => 1 / Math.sin(x),
	asin: Math.asin,
	acos: Math.acos,
	atan: Math.atan,
	sinh: Math.sinh,
	cosh: Math.cosh,
	tanh: Math.tanh,
	exp: Math.exp,
	log: Math.log,
	ln: Math.log,
	log10: Math.log10,
	log2: Math.log2,
	sqrt: Math.sqrt,
	cbrt: Math.cbrt,
	abs: Math.abs,
};
/** Other names learners use for the same functions. */
const ALIASES: Record<string, string> = { arcsin: "asin", arccos: "acos", arctan: "atan", lg: "log10", lb: "log2" };
const LOG_NAMES = new Set(["log", "ln", "log10", "log2"]);
const CONSTANTS: Record<string, number> = { pi: Math.PI, e: Math.E };

/** mathjs operator names we evaluate. */
const BINARY: Record<string, "+" | "-" | "*" | "/" | "^"> = {
	add: "+",
	subtract: "-",
	multiply: "*",
	divide: "/",
	pow: "^",
};

const SUPERSCRIPTS: Record<string, string> = {
	"⁰": "0",
	"¹": "1",
	"²": "2",
	"³": "3",
	"⁴": "4",
	"⁵": "5",
	"⁶": "6",
	"⁷": "7",
	"⁸": "8",
	"⁹": "9",
	"⁻": "-",
};
const SYMBOLS: Record<string, string> = { "×": "*", "·": "*", "⋅": "*", "÷": "/", "−": "-", π: " pi ", "√": " sqrt " };

/** A function name followed by its argument without brackets: `sin x`, `log n`, `sin 2x`, `√2` (after `√` → `sqrt `). */
const BARE_ARGUMENT =
	/(?<![a-z])(arcsin|arccos|arctan|asin|acos|atan|sinh|cosh|tanh|sin|cos|tan|cot|sec|csc|exp|log10|log2|log|ln|lg|sqrt|cbrt|abs) *(\d+(?:\.\d+)?[a-z]?|[a-z])(?![a-z\d.(])/g;

/** TeX as models write answers (`$\frac{1}{2}$`, `\sqrt{x}`, `e^{2x}`, `2\cdot x`) as plain math; code quotes dropped. */
function foldTex(text: string): string {
	let t = text;
	for (const space of ["\\,", "\\;", "\\!", "\\ ", "\\left", "\\right", "\\dfrac", "\\tfrac", "$", "`"])
		t = t.replaceAll(space, space.endsWith("frac") ? "\\frac" : "");
	for (const [tex, plain] of [
		["\\cdot", "*"],
		["\\times", "*"],
		["\\div", "/"],
	] as const)
		t = t.replaceAll(tex, plain);
	t = bracesOf(t).replaceAll("\\", "");
	return t.endsWith(".") ? t.slice(0, -1) : t;
}

/** Braces as brackets, one pass: `\frac{a}{b}` becomes `((a)/(b))`, any other group `(…)`. */
function bracesOf(t: string): string {
	let out = "";
	const open: Array<"plain" | "numerator" | "denominator"> = [];
	let expect: "numerator" | "denominator" | undefined;
	for (let i = 0; i < t.length; i++) {
		if (t.startsWith("\\frac", i)) {
			expect = "numerator";
			i += 4;
			continue;
		}
		const c = t[i]!;
		if (c === "{") {
			const kind = expect ?? "plain";
			open.push(kind);
			out += kind === "numerator" ? "((" : "(";
			expect = undefined;
		} else if (c === "}") {
			const kind = open.pop();
			out += kind === "numerator" ? ")/" : kind === "denominator" ? "))" : ")";
			expect = kind === "numerator" ? "denominator" : undefined;
		} else {
			if (c !== " ") expect = undefined;
			out += c;
		}
	}
	return out;
}

/** Text mathjs may parse: symbols spelled out, superscripts as powers, the locale's decimal comma, bare arguments bracketed. */
function prepare(raw: string, locale: Locale): string | undefined {
	if (raw.length > MAX_EXPRESSION_CHARS) return undefined;
	let out = "";
	let superscript = false;
	for (const c of raw) {
		const sup = SUPERSCRIPTS[c];
		if (sup !== undefined) {
			out += superscript ? sup : `^(${sup}`;
			superscript = true;
			continue;
		}
		if (superscript) out += ")";
		superscript = false;
		out += SYMBOLS[c] ?? c;
	}
	if (superscript) out += ")";
	let text = foldTex(out.normalize("NFKC")).toLowerCase().trim();
	// Punctuation mathjs reads as something else (strings, percent, matrices, accessors, factorial) is not an answer here.
	for (const c of text) if ("%'\"`[]{}!;:?<>&|$#@\\".includes(c)) return undefined;
	if (locale !== "en") text = text.replace(/(\d),(\d)/g, "$1.$2");
	if (text.includes(",")) return undefined;
	return text.replace(BARE_ARGUMENT, "$1($2)");
}

/** Reads a mathjs tree into our expression, or undefined when it holds anything outside the allowlist. */
class Reader {
	nodes = 0;
	vars = new Set<string>();
	logs = new Set<string>();
	ambiguous = false;
	bigO = false;
	calls = 0;

	read(node: MathNode, depth: number): Expr | undefined {
		if (++this.nodes > MAX_NODES || depth > MAX_DEPTH) return undefined;
		const n = node as MathNode & {
			value?: unknown;
			name?: string;
			op?: string;
			fn?: string | { name?: string };
			args?: MathNode[];
			content?: MathNode;
			implicit?: boolean;
		};
		switch (n.type) {
			case "ConstantNode":
				return typeof n.value === "number" && Number.isFinite(n.value) ? { k: "num", v: n.value } : undefined;
			case "ParenthesisNode":
				return n.content ? this.read(n.content, depth + 1) : undefined;
			case "SymbolNode":
				return this.symbol(n.name ?? "");
			case "OperatorNode":
				return this.operator(n as MathNode & { fn: string; args: MathNode[]; implicit?: boolean }, depth);
			case "FunctionNode":
				return this.call(typeof n.fn === "object" ? (n.fn?.name ?? "") : "", n.args ?? [], depth);
			default:
				return undefined;
		}
	}

	private symbol(name: string): Expr | undefined {
		const constant = CONSTANTS[name];
		if (constant !== undefined) return { k: "const", v: constant };
		// One letter (any script): a variable. Longer words are text, not math.
		if ([...name].length !== 1 || !/^\p{L}$/u.test(name)) return undefined;
		this.vars.add(name);
		return { k: "var", name };
	}

	private operator(
		n: MathNode & { fn: string; args: MathNode[]; implicit?: boolean },
		depth: number,
	): Expr | undefined {
		const [first, second] = n.args;
		if (n.fn === "unaryMinus" || n.fn === "unaryPlus") {
			if (!first || n.args.length !== 1) return undefined;
			const a = this.read(first, depth + 1);
			return a && (n.fn === "unaryMinus" ? { k: "neg", a } : a);
		}
		const op = BINARY[n.fn];
		if (!op || !first || !second || n.args.length !== 2) return undefined;
		if (op === "^") this.calls++;
		// 1/2x and e^2x: mathjs reads (1/2)·x and e²·x; many learners mean 1/(2x) and e^(2x). x^1/2: x/2 or √x?
		if (n.implicit && (bareDivision(first) || barePower(first))) this.ambiguous = true;
		// 1/2x read as 1/(2x) by mathjs in some spellings: a product without a sign next to a division is read two ways.
		if (op === "/" && (barePower(first) || isImplicit(second))) this.ambiguous = true;
		const a = this.read(first, depth + 1);
		const b = a && this.read(second, depth + 1);
		return a && b ? { k: "op", op, a, b } : undefined;
	}

	private call(rawName: string, args: MathNode[], depth: number): Expr | undefined {
		const [arg] = args;
		if (!arg || args.length !== 1) return undefined;
		const name = ALIASES[rawName] ?? rawName;
		if (name === "o") {
			// Big-O: compared by what is inside.
			this.bigO = true;
			return this.read(arg, depth + 1);
		}
		const inner = this.read(arg, depth + 1);
		if (!inner) return undefined;
		if (FUNCTIONS[name]) {
			this.calls++;
			if (LOG_NAMES.has(name)) this.logs.add(name);
			return { k: "fn", name, a: inner };
		}
		// x(x+1): a one-letter variable before brackets multiplies them.
		const variable = this.symbol(rawName);
		return variable?.k === "var" ? { k: "op", op: "*", a: variable, b: inner } : undefined;
	}
}

const isOp = (node: MathNode, fn: string): boolean =>
	node.type === "OperatorNode" && (node as MathNode & { fn: string }).fn === fn;

/** A product written without a sign (`2x`, `(2)x`), not inside brackets. */
const isImplicit = (node: MathNode): boolean =>
	isOp(node, "multiply") && (node as MathNode & { implicit?: boolean }).implicit === true;

/** A division whose divisor has no brackets (`1/2`, not `(1)/(2)` from TeX): what follows it may be meant below. */
const bareDivision = (node: MathNode): boolean =>
	isOp(node, "divide") && (node as MathNode & { args: MathNode[] }).args[1]?.type !== "ParenthesisNode";

/** A power whose exponent has no brackets (`e^2`, not `e^(2)` or `x²`): what follows it may be meant inside. */
const barePower = (node: MathNode): boolean =>
	isOp(node, "pow") && (node as MathNode & { args: MathNode[] }).args[1]?.type !== "ParenthesisNode";

/** One side of an answer parsed and checked, or undefined when it is not math we compare. */
function parseSide(text: string, reader: Reader): Expr | undefined {
	if (text === "") return undefined;
	try {
		return reader.read(parse(text), 0);
	} catch {
		return undefined;
	}
}

/** A name on the left of an equation (`y`, `f(x)`), when it is one. */
function nameOf(expr: Expr): string | undefined {
	if (expr.k === "var") return expr.name;
	if (expr.k === "op" && expr.op === "*" && expr.a.k === "var" && expr.b.k === "var") return expr.a.name;
	return undefined;
}

/** Reads an answer as math: an expression or an equation (one `=`). Undefined when it is not. */
export function readMath(raw: string, locale: Locale = "en"): MathSide | undefined {
	const text = prepare(raw, locale);
	if (text === undefined || !/[\p{L}\d]/u.test(text)) return undefined;
	const reader = new Reader();
	const parts = text.split("=");
	if (parts.length > 2) return undefined;
	const side = (): Omit<MathSide, "expr" | "equation"> => ({
		vars: reader.vars,
		ambiguous: reader.ambiguous,
		bigO: reader.bigO,
		logs: reader.logs,
		calls: reader.calls,
		plain: /^[+-]?\d+(?:\.\d+)?$/.test(text),
	});
	if (parts.length === 1) {
		const expr = parseSide(text, reader);
		return expr && { ...side(), expr };
	}
	const left = parseSide(parts[0]!.trim(), reader);
	const right = left && parseSide(parts[1]!.trim(), reader);
	if (!left || !right) return undefined;
	const named = nameOf(left);
	return { ...side(), equation: { left, right, ...(named !== undefined ? { named } : {}) } };
}

function evaluate(e: Expr, at: ReadonlyMap<string, number>): number {
	switch (e.k) {
		case "num":
		case "const":
			return e.v;
		case "var":
			return at.get(e.name) ?? Number.NaN;
		case "neg":
			return -evaluate(e.a, at);
		case "fn":
			return FUNCTIONS[e.name]!(evaluate(e.a, at));
		case "op": {
			const a = evaluate(e.a, at);
			const b = evaluate(e.b, at);
			if (e.op === "+") return a + b;
			if (e.op === "-") return a - b;
			if (e.op === "*") return a * b;
			if (e.op === "/") return a / b;
			return a ** b;
		}
	}
}

/** Fixed sample points (a small LCG, seeded): each variable gets its own value per point, in ±[0.3, 3.3]. */
function samplePoints(vars: readonly string[]): Array<Map<string, number>> {
	let seed = 0x2545f491;
	const next = (): number => {
		seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
		return seed / 2 ** 32;
	};
	const points: Array<Map<string, number>> = [];
	for (let i = 0; i < SAMPLES; i++) {
		const at = new Map<string, number>();
		for (const v of vars) at.set(v, (i % 3 === 2 ? -1 : 1) * (0.3 + 3 * next()));
		points.push(at);
	}
	return points;
}

const agree = (a: number, b: number): boolean => Math.abs(a - b) <= RELATIVE * Math.max(1, Math.abs(a), Math.abs(b));

/** How two functions of the same variables compare at the sample points: same, different, or too few defined points. */
function compare(f: (at: Map<string, number>) => number, g: (at: Map<string, number>) => number, vars: string[]) {
	let points = 0;
	let differ = false;
	for (const at of samplePoints(vars)) {
		const a = f(at);
		const b = g(at);
		if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
		points++;
		if (!agree(a, b)) differ = true;
	}
	if (points < MIN_POINTS) return undefined;
	return differ ? "different" : "same";
}

/** The two sides' difference (an equation as `left - right`). */
const differenceOf = (eq: { left: Expr; right: Expr }): Expr => ({ k: "op", op: "-", a: eq.left, b: eq.right });

/** Two equations are the same when one is a constant non-zero multiple of the other (`2y = 4x + 2` is `y = 2x + 1`). */
function sameEquation(a: Expr, b: Expr, vars: string[]): "same" | undefined {
	let ratio: number | undefined;
	let points = 0;
	for (const at of samplePoints(vars)) {
		const x = evaluate(a, at);
		const y = evaluate(b, at);
		if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
		if (Math.abs(y) < 1e-9) {
			if (Math.abs(x) >= 1e-9) return undefined;
			continue;
		}
		const r = x / y;
		if (ratio === undefined) ratio = r;
		else if (!agree(r, ratio)) return undefined;
		points++;
	}
	return points >= MIN_POINTS && ratio !== undefined && ratio !== 0 ? "same" : undefined;
}

/** An equation `y = …` read as its right side when the other answer does not name `y`. */
function asExpression(side: MathSide, other: MathSide): Expr | undefined {
	if (side.expr) return side.expr;
	const eq = side.equation;
	if (!eq?.named || other.vars.has(eq.named)) return undefined;
	return eq.right;
}

/** The variables of an expression (for an equation read as its right side). */
function varsOf(e: Expr, into = new Set<string>()): Set<string> {
	if (e.k === "var") into.add(e.name);
	else if (e.k === "op") {
		varsOf(e.a, into);
		varsOf(e.b, into);
	} else if (e.k === "neg" || e.k === "fn") varsOf(e.a, into);
	return into;
}

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean =>
	a.size === b.size && [...a].every((x) => b.has(x));

/** The answer computes a value (`sin(30)`, `√16`, `2^3`): a number in it is not the answer's value. */
export function computesValue(raw: string, locale: Locale = "en"): boolean {
	return (readMath(raw, locale)?.calls ?? 0) > 0;
}

/**
 * Does a typed answer say the expected one as math? `same` (equivalent), `different` (conclusively another
 * expression in the same variables), or undefined (not math, a form read two ways, or not decidable).
 */
export function compareMath(given: string, expected: string, locale: Locale = "en"): "same" | "different" | undefined {
	const g = readMath(given, locale);
	const e = g && readMath(expected, locale);
	if (!g || !e || (g.plain && e.plain)) return undefined;
	if (g.ambiguous || e.ambiguous) return undefined;
	// log against ln or log10: which base the question means is not ours to guess.
	if (g.logs.size > 0 && e.logs.size > 0 && !sameSet(g.logs, e.logs)) return undefined;
	if (g.equation && e.equation) {
		const vars = [...new Set([...g.vars, ...e.vars])];
		return sameEquation(differenceOf(g.equation), differenceOf(e.equation), vars);
	}
	const a = asExpression(g, e);
	const b = asExpression(e, g);
	if (!a || !b) return undefined;
	const gv = varsOf(a);
	const ev = varsOf(b);
	// 3*4 for 12: arithmetic typed for a number is not its value (the question may have asked for it).
	if (gv.size === 0 && ev.size === 0 && e.plain && !g.plain) return undefined;
	const vars = [...new Set([...gv, ...ev])];
	const verdict = compare(
		(at) => evaluate(a, at),
		(at) => evaluate(b, at),
		vars,
	);
	if (verdict !== "different") return verdict;
	// Another value is conclusive only for expressions in the same variables, written unambiguously.
	const conclusive = gv.size > 0 && sameSet(gv, ev) && !g.bigO && !e.bigO;
	return conclusive ? "different" : undefined;
}

/**
 * Inline math is drawn in one line: MathJax 4 breaks an inline formula into one <svg> per piece (for a
 * browser to wrap), and the picture drew every piece at one spot, the glyphs stacked in a near-square.
 * Now an inline formula is one root, and its picture has the proportions of the same TeX drawn as display math.
 */

import { describe, expect, it } from "vitest";
import { svgToPng, texToSvg } from "../../src/render/math/typeset.ts";

const roots = (svg: string): number => svg.split("<svg").length - 1;

describe("inline math", () => {
	it("is one picture in one line, proportioned like the same formula in display style", async () => {
		for (const tex of ["E = mc^2", "x^2 + 1", String.raw`\frac34+\frac16`, "a^2 + b^2 = c^2"]) {
			const inline = await texToSvg(tex, false);
			expect(roots(inline), tex).toBe(1);
			const [small, big] = await Promise.all([svgToPng(inline), svgToPng(await texToSvg(tex, true))]);
			// Wider than tall, like the display rendering (the stacked pictures were about square).
			expect(small.width / small.height, tex).toBeGreaterThan(1.8);
			// \frac is smaller in text style than in display style: the width may differ by its fractions alone.
			expect(Math.abs(small.width - big.width) / big.width, tex).toBeLessThan(0.35);
		}
	});
});

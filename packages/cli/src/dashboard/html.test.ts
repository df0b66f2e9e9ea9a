import { describe, expect, it } from "vitest";
import { html, raw } from "./html.js";

describe("html", () => {
  it("escapes every interpolated value, so agent output never becomes markup", () => {
    const line = `<script>alert("x")</script> & 'quotes'`;
    expect(html`<pre>${line}</pre>`.text).toBe(
      "<pre>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</pre>",
    );
    expect(html`<a title="${'" onmouseover="x'}">`.text).toBe(
      '<a title="&quot; onmouseover=&quot;x">',
    );
  });

  it("keeps markup made by html or raw, joins lists and drops null, undefined and false", () => {
    const items = ["a<b", "c"].map((x) => html`<li>${x}</li>`);
    expect(html`<ul>${items}</ul>${null}${undefined}${false}${raw("<hr>")}${0}`.text).toBe(
      "<ul><li>a&lt;b</li><li>c</li></ul><hr>0",
    );
  });
});

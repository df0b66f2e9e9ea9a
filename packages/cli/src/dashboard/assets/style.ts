/** The dashboard's stylesheet: system fonts only (works offline), light and dark, narrow screens. */
export const STYLE_CSS = `
:root{--bg:#f7f7f5;--fg:#1d1f23;--dim:#5d6470;--card:#fff;--line:#d9dce1;--accent:#2456c7;--accent-fg:#fff;
--ok:#1f7a3a;--warn:#9a5b00;--bad:#b42318;--run:#2456c7;--code:#f0f1f3;--focus:#ffbf47;
--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
--sans:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Liberation Sans",Arial,sans-serif}
@media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e6e8eb;--dim:#a0a7b3;--card:#1f2227;--line:#343943;
--accent:#7aa2ff;--accent-fg:#0b1020;--ok:#58c27d;--warn:#e0a84a;--bad:#ff7b72;--run:#7aa2ff;--code:#262a31}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 var(--sans)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,
summary:focus-visible,[tabindex]:focus-visible,.graph a:focus-visible{outline:3px solid var(--focus);outline-offset:2px;border-radius:3px}
.skip{position:absolute;left:-999px;top:0;background:var(--card);padding:.5em 1em;z-index:9}
.skip:focus{left:.5em}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.top{display:flex;align-items:center;gap:1.25em;padding:.6em 1.25em;background:var(--card);border-bottom:1px solid var(--line);position:sticky;top:0;z-index:5}
.brand{font-weight:700;font-size:1.15em;text-decoration:none;color:var(--fg);letter-spacing:.02em}
.top nav{display:flex;gap:1em}
.top nav a{text-decoration:none;padding:.25em .1em;border-bottom:2px solid transparent;color:var(--fg)}
.top nav a[aria-current=page]{border-bottom-color:var(--accent);font-weight:600}
.conn{margin-left:auto;font-size:.85em;color:var(--dim)}
.conn.on::before{content:"";display:inline-block;width:.55em;height:.55em;border-radius:50%;background:var(--ok);margin-right:.4em}
main{max-width:1180px;margin:0 auto;padding:1em 1.25em 3em}
main:focus{outline:none}
h1{font-size:1.45em;margin:.4em 0 .6em;overflow-wrap:anywhere}
h2{font-size:1.15em;margin:1.6em 0 .5em}
h3{margin:.2em 0 .4em}
.mono,code,pre{font-family:var(--mono);font-size:.9em}
.dim{color:var(--dim)}
.error{color:var(--bad)}
pre{background:var(--code);padding:.7em .9em;border-radius:6px;overflow:auto;max-height:32em;margin:.4em 0}
pre.wrap,.pre{white-space:pre-wrap;overflow-wrap:anywhere}
.crumbs{font-size:.9em;color:var(--dim);overflow-wrap:anywhere}
.notice{background:color-mix(in srgb,var(--accent) 12%,var(--card));border:1px solid var(--line);padding:.5em .8em;border-radius:6px}
.empty{color:var(--dim)}
.filters{display:flex;flex-wrap:wrap;gap:.6em 1em;align-items:end;margin:0 0 1em;padding:.8em;background:var(--card);border:1px solid var(--line);border-radius:8px}
.filters label{display:flex;flex-direction:column;font-size:.85em;color:var(--dim);gap:.2em}
.filters .grow{flex:1 1 14em}
input,select,textarea,button{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:.4em .6em}
button{background:var(--accent);color:var(--accent-fg);border-color:var(--accent);font-weight:600;cursor:pointer;padding:.45em 1em}
button:hover{filter:brightness(1.08)}
.table-wrap{overflow-x:auto;background:var(--card);border:1px solid var(--line);border-radius:8px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.5em .7em;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.8em;text-transform:uppercase;letter-spacing:.04em;color:var(--dim);font-weight:600}
tbody tr:last-child td{border-bottom:0}
tbody tr:hover{background:color-mix(in srgb,var(--accent) 5%,transparent)}
.num{text-align:right;font-variant-numeric:tabular-nums}
td .question{font-size:.85em;color:var(--warn);margin-top:.2em;max-width:40em}
.badge{display:inline-block;padding:.05em .55em;border-radius:999px;font-size:.8em;font-weight:600;border:1px solid currentColor;white-space:nowrap}
.s-running{color:var(--run)}.s-running::before{content:"\\25CF  ";animation:pulse 1.2s infinite}
.s-suspended{color:var(--warn)}.s-completed{color:var(--ok)}.s-idle{color:var(--dim)}
.s-cancelled{color:var(--dim);text-decoration:line-through}.s-corrupt{color:var(--bad)}
.badge.out{color:var(--fg);border-color:var(--line);background:var(--code);font-family:var(--mono);font-weight:500}
@keyframes pulse{50%{opacity:.3}}
@media (prefers-reduced-motion:reduce){.s-running::before{animation:none}}
.pager{display:flex;gap:1em;margin-top:.8em;color:var(--dim)}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25em 1em;margin:.5em 0}
.facts dt{color:var(--dim)}.facts dd{margin:0;overflow-wrap:anywhere}
.task summary,details summary{cursor:pointer;color:var(--accent)}
.ask{border:2px solid var(--warn);border-radius:8px;padding:.4em 1em 1em;background:var(--card);margin:1em 0}
.ask h2{margin-top:.5em;color:var(--warn)}
blockquote.question{margin:.5em 0;padding:.6em .9em;border-left:4px solid var(--warn);background:var(--code);white-space:pre-wrap;overflow-wrap:anywhere}
.answer{display:flex;flex-direction:column;gap:.5em;max-width:46em}
.answer label{font-weight:600}
.answer button{align-self:flex-start}
.live{border:2px solid var(--run);border-radius:8px;padding:.2em 1em .8em;background:var(--card);margin:1em 0}
.live h2{margin-top:.5em;color:var(--run)}
#live-output{max-height:18em;min-height:3em;white-space:pre-wrap;overflow-wrap:anywhere}
.timeline{list-style:none;padding:0;margin:0;border-left:3px solid var(--line);margin-left:.5em}
.step{position:relative;padding:.5em 0 .7em 1.1em}
.step::before{content:"";position:absolute;left:-.5em;top:1em;width:.7em;height:.7em;border-radius:50%;background:var(--accent);border:2px solid var(--bg)}
.step-head{display:flex;flex-wrap:wrap;gap:.4em;align-items:baseline}
.step-n{color:var(--dim);font-variant-numeric:tabular-nums}
.step-meta{font-size:.85em;color:var(--dim);overflow-wrap:anywhere}
.tree,.tree ul{list-style:none;padding-left:1.2em;margin:.2em 0}
.tree{padding-left:0}
.tree li{margin:.3em 0;overflow-wrap:anywhere}
.tree ul{border-left:2px solid var(--line)}
.graph-wrap{overflow:auto;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.5em;max-height:75vh}
.graph{display:block;margin:0 auto;max-width:100%;height:auto}
.graph .node rect{fill:var(--card);stroke:var(--accent);stroke-width:1.5}
.graph .node text{fill:var(--fg);font:600 13px var(--sans)}
.graph .node.start rect,.graph .node.end rect{fill:var(--code);stroke:var(--ok)}
.graph .node.suspend rect{fill:var(--code);stroke:var(--warn)}
.graph a.node:hover rect,.graph a.node:focus rect{stroke-width:3}
.graph .edge path{fill:none;stroke:var(--dim);stroke-width:1.4}
.graph .edge path.hit{stroke:transparent;stroke-width:14;pointer-events:stroke}
.graph .edge.suspend path:not(.hit){stroke:var(--warn);stroke-dasharray:5 3}
.graph .edge.end path:not(.hit){stroke:var(--ok)}
.graph .edge.fanout path:not(.hit){stroke:var(--accent);stroke-width:2.4;stroke-dasharray:9 3 2 3}
.graph .node.join rect{stroke-dasharray:6 3}
.graph .edge:hover path:not(.hit),.graph .edge:focus path:not(.hit){stroke:var(--accent);stroke-width:2.6}
.graph .edge-label{fill:var(--fg);font:12px var(--mono);stroke:var(--card);stroke-width:4px}
.graph marker path{fill:var(--dim)}
.edges tr:target,.role-card:target{outline:2px solid var(--focus)}
.role-card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.6em 1em;margin:.8em 0}
.history{padding-left:1.5em}
@media (max-width:700px){
 body{font-size:15px}
 main{padding:.6em .7em 2em}
 .top{padding:.5em .7em;gap:.8em}
 table.threads thead{display:none}
 table.threads tbody{display:block}
 table.threads tr{display:flex;flex-wrap:wrap;align-items:baseline;gap:.25em .7em;padding:.6em .75em;border-bottom:1px solid var(--line)}
 table.threads tbody tr:last-child{border-bottom:0}
 table.threads td{border:0;padding:0}
 table.threads td:nth-child(1),table.threads td:nth-child(7){flex-basis:100%}
 table.threads td:nth-child(4)::before{content:"role ";color:var(--dim)}
 table.threads td:nth-child(5)::after{content:" steps";color:var(--dim)}
 table.threads td:nth-child(7){font-size:.85em;color:var(--dim)}
 .facts{gap:.2em .8em}
 .filters{flex-direction:column;align-items:stretch}
 .filters .grow{flex:none}
 .answer button{align-self:stretch}
 h1{font-size:1.2em}
}
`;

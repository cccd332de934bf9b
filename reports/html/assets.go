package html

// pageCSS styles the page: a readable column, tables that scroll
// sideways when wide, plots that shrink to the window.
const pageCSS = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",Arial,sans-serif;color:#1d2327;background:#fff;margin:0}
header{background:#2b3a4a;color:#fff;padding:14px 24px}
header h1{margin:0 0 4px;font-size:22px}
header nav a{color:#cfe0f2;text-decoration:none}
main{max-width:1180px;margin:0 auto;padding:8px 24px 40px}
h2{border-bottom:1px solid #d5dbe1;padding-bottom:4px;margin-top:32px}
.verdict{background:#eef6ee;border:1px solid #9ccc9c;border-radius:6px;padding:4px 18px 12px;margin-top:20px}
.verdict h2{border:0;margin-top:12px}
.headline{font-size:19px;font-weight:600}
.caution{background:#fff4e0;border-left:4px solid #e0a030;padding:6px 10px}
.hint,.note,figcaption{color:#4b5563;font-size:14px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:8px 0;font-size:14px}
th,td{border:1px solid #d5dbe1;padding:4px 8px;text-align:left;white-space:nowrap}
th{background:#f1f4f7;position:sticky;top:0}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tbody tr:nth-child(even){background:#fafbfc}
html.js th{cursor:pointer;user-select:none}
html.js th:hover{background:#e2e8ef}
html.js th[aria-sort=ascending]::after{content:" \25B2"}
html.js th[aria-sort=descending]::after{content:" \25BC"}
figure{margin:24px 0}
.plot svg{width:100%;max-width:860px;height:auto;border:1px solid #e5e7eb}
dl.config{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}
dl.config dt{font-weight:600}
dl.config dd{margin:0}
dl.glossary dt{font-weight:600;margin-top:8px}
dl.glossary dd{margin-left:20px}
ul.warnings>li{margin-bottom:8px}
`

// pageJS makes every table.sortable sortable by clicking a header (or
// pressing Enter on it): cells with data-v sort by that number, n/a
// (empty data-v) last, others by their text. "#sort=N" or "#sort=N-desc"
// in the address sorts the comparison table by column N on load. It
// does nothing else.
const pageJS = `(function(){
document.documentElement.className="js";
function key(td){var v=td.getAttribute("data-v");if(v===null){return td.textContent.trim();}return v===""?NaN:parseFloat(v);}
function cmp(a,b,asc){
if(typeof a==="number"&&typeof b==="number"){if(isNaN(a)){return isNaN(b)?0:1;}if(isNaN(b)){return -1;}return asc?a-b:b-a;}
a=String(a);b=String(b);return asc?a.localeCompare(b):b.localeCompare(a);}
function sortBy(t,i,asc){
var hs=t.tHead.rows[0].cells;
for(var j=0;j<hs.length;j++){hs[j].setAttribute("aria-sort",j===i?(asc?"ascending":"descending"):"none");}
var body=t.tBodies[0],rows=Array.prototype.slice.call(body.rows);
rows.sort(function(x,y){return cmp(key(x.cells[i]),key(y.cells[i]),asc);});
rows.forEach(function(r){body.appendChild(r);});}
var tables=document.querySelectorAll("table.sortable");
Array.prototype.forEach.call(tables,function(t){
Array.prototype.forEach.call(t.tHead.rows[0].cells,function(th,i){
th.setAttribute("aria-sort","none");th.tabIndex=0;
var go=function(){sortBy(t,i,th.getAttribute("aria-sort")!=="ascending");};
th.addEventListener("click",go);
th.addEventListener("keydown",function(e){if(e.key==="Enter"||e.key===" "){e.preventDefault();go();}});});});
var m=/^#sort=(\d+)(-desc)?$/.exec(location.hash),t=document.querySelector("#comparison table.sortable");
if(m&&t&&+m[1]<t.tHead.rows[0].cells.length){sortBy(t,+m[1],!m[2]);}
})();`

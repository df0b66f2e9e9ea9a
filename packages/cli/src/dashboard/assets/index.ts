export { APP_JS } from "./app.js";
export { STYLE_CSS } from "./style.js";

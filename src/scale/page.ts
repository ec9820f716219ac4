/** The page `GET /` serves (written by the page's own task; see README "Scaling out"). */
export const RUNS_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>cli-subprocess-core runs</title></head><body><h1>Runs</h1></body></html>`;

// The first request of index.html that depends on its address, made as soon as this small module
// and looplab-api.js have arrived (on a phone's link about 0.4 s after the page) rather than once
// page.js has (0.75 s): the saved run the page will show first (issue 39, item 6), that of the
// experiment the address names, or of the first experiment, which the page shows when the address
// names none or one it does not know, when the address sets nothing else. page.js asks
// connect.js for it again and gets this same download (fetched once per page).
import { hasSavedRun, savedRun } from '../runtime/connect.js';

// The page's first experiment: the first of the experiment list (saved-runs.test.mjs checks it).
export const FIRST_EXPERIMENT = 'standardization';

const query = new URLSearchParams(location.search);
if ([...query.keys()].every((k) => k === 'experiment' || k === 'lang')) {
  const named = query.get('experiment');
  savedRun(hasSavedRun(named) ? named : FIRST_EXPERIMENT);
}

import { observeRehearsals } from '../../src/rehearsal/observer.ts';
import { keepForLeakScan, leakScanOn } from '../helpers/leak-trail.ts';

/**
 * Set up in each end-to-end test file (the e2e and fuzz projects' setupFiles): under the leak
 * scan, every rehearsal this worker starts keeps what it shows for it.
 */
if (leakScanOn()) observeRehearsals(keepForLeakScan);

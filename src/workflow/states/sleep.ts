/** Sleep state: a durable timer; the data passes through. */
import { sleep } from '@temporalio/workflow';
import type { SleepState } from '../../dsl/model';
import { parseDuration } from '../../dsl/duration';
import type { Holder, Runtime } from '../runtime';

export async function runSleep(rt: Runtime, state: SleepState, _h: Holder): Promise<void> {
  await sleep(parseDuration(state.duration), { summary: rt.summary(state.name, undefined, `sleep ${state.duration}`) });
}

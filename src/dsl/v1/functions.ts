/**
 * What a 1.0 document calls through activities (sandbox-safe, pure): the names under which
 * `swflow test` mocks answer its calls, and the queues they are served on. A call's name is
 * the call type (`http`, `openapi`, `grpc`, `asyncapi`, `mcp`, `a2a`) for inline calls, the `use.functions` entry's name for the calls it makes,
 * `<activity>:<version>@default` for swflow's default catalog (adapter activities), and `container`
 * for `run.container` tasks. A cataloged function (`name:version@catalog`) or a function by URI is
 * its call string: its document's task runs as a use.functions function does, so the calls it
 * makes go under that name (served on the calling task's `metadata.worker`, else the adapters' queue).
 */
import { PROCESS_TASK_QUEUE } from '../../common/contracts';
import { needsDocument } from '../../common/catalogs';
import { entryOf, type Task, type TaskList, type V1Definition } from '../../common/model-v1';
import { ACTIVITY_OF_CALL } from '../../common/call-kinds';

export interface CalledFunction {
  name: string;
  type: string;
  /** The task queue (`metadata.worker`), when not the built-in adapters' queue. */
  worker?: string;
}

export function v1Functions(def: V1Definition): CalledFunction[] {
  const out = new Map<string, CalledFunction>();
  const fns = def.workflow.use?.functions ?? {};
  const visitTask = (t: Task, as?: string) => {
    if (typeof t.call === 'string') {
      const worker = typeof t.metadata?.worker === 'string' ? t.metadata.worker : undefined;
      if (Object.hasOwn(ACTIVITY_OF_CALL, t.call)) out.set(as ?? t.call, { name: as ?? t.call, type: t.call, ...(worker ? { worker } : {}) });
      else if (/@default$/.test(t.call) || needsDocument(t.call, def.workflow.use?.catalogs)) out.set(t.call, { name: t.call, type: 'custom', ...(worker ? { worker } : {}) });
      else if (fns[t.call]) visitTask(fns[t.call], t.call);
    }
    // run.container: the process worker's `sw.run.container`, mocked as `container` (a case needs no container engine).
    if (t.run?.container) out.set('container', { name: 'container', type: 'custom', worker: typeof t.metadata?.worker === 'string' ? t.metadata.worker : PROCESS_TASK_QUEUE });
    for (const list of [t.do, t.try, t.catch?.do, t.foreach?.do, t.fork?.branches]) visitList(list, as);
  };
  const visitList = (list: TaskList | undefined, as?: string) => (list ?? []).forEach((item) => visitTask(entryOf(item)[1], as));
  visitList(def.workflow.do);
  return [...out.values()];
}

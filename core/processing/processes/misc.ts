/** `constant` and `inspect`: processes that hand a value on. */
import type { Args, ProcessDefinition } from '../process.ts';
import { describeValue } from '../schema/match.ts';

export const miscProcesses: ProcessDefinition[] = [
  {
    id: 'constant',
    run: ({ x }: Args) => x,
    elementwise: { inputs: ['x'], expression: ({ x }) => x!, resultKind: ({ x }) => x },
  },
  {
    // Logs a summary of the value (never a whole data cube) and returns it unchanged.
    id: 'inspect',
    run: ({ data, message, code, level }: Args, context) => {
      context.services.log?.write({
        level: level as string,
        code: code as string,
        message: message as string,
        data: typeof data === 'object' && data !== null && !Array.isArray(data) ? describeValue(data) : data,
        node: context.node,
      });
      return data;
    },
  },
];

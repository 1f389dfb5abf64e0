import { dataSourceKind, type DataSource } from '../../../core/resources/data-source/schema.ts';
import type { ControllerDefinition } from '../../runtime/controller.ts';
import { observeDataSource, planDataSource, type DataSourceObserved } from './plan.ts';

export const dataSourceController: ControllerDefinition<DataSource, DataSourceObserved> = {
  name: 'datasource',
  kind: dataSourceKind,
  observe: async (source) => observeDataSource(source),
  plan: planDataSource,
};

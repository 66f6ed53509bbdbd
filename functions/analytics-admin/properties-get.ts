/** properties.get: GET /v1alpha/{name=properties/*} */
import { httpHandler } from '../_shared/http-handler';
import { jsonResult } from '../_shared/http-result';
import { tableContext } from '../_shared/table';
import { dynamoDirectoryRepository } from '../core/directory/directory-repository';
import { dynamoPropertyRepository } from '../core/properties/property-repository';
import { getProperty, type PropertyDeps } from '../core/properties/property-service';
import { PROPERTY_FIELDS } from '../schemas';

export const makeHandler = (deps: PropertyDeps) =>
  httpHandler('properties.get', { body: 'none', response: PROPERTY_FIELDS }, async ({ pathParameters, principal }) =>
    jsonResult(200, await getProperty(deps, principal.sub, pathParameters.propertiesId)),
  );

const table = tableContext();
export const handler = makeHandler({
  properties: dynamoPropertyRepository(table),
  directory: dynamoDirectoryRepository(table),
});

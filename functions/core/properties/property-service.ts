/** properties.get: validation, access from the directory, and the answer that does not leak existence. */
import type { DirectoryRepository } from '../directory/directory';
import { invalidArgument, permissionDenied } from '../errors';
import { grantsThatCover, PROPERTY_ID, type Property } from './property';

export interface PropertyRepository {
  get(propertyId: string): Promise<Property | undefined>;
}

export interface PropertyDeps {
  readonly properties: PropertyRepository;
  readonly directory: DirectoryRepository;
}

/** Missing and unreadable properties give this same error, so a caller cannot probe which ids exist. */
const noAccess = () => permissionDenied('forbidden', 'The caller does not have permission');

export async function getProperty(deps: PropertyDeps, sub: string, propertyId: string | undefined): Promise<Property> {
  if (!propertyId || !PROPERTY_ID.test(propertyId)) {
    throw invalidArgument(
      'badRequest',
      "The value for the 'name' field was invalid but must be in format 'properties/123'.",
      { location: 'name', locationType: 'parameter' },
    );
  }
  const [property, profile] = await Promise.all([deps.properties.get(propertyId), deps.directory.profile(sub)]);
  if (!property || !grantsThatCover(property).some((name) => profile.reads.has(name))) throw noAccess();
  return property;
}

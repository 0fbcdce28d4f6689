/*
 * shapes.c writes OTF2 archives of unusual but legal shapes with the OTF2
 * reference writer library (libotf2), for tests that compare hpcfs's views
 * with otf2-print and python3-otf2 on them.
 *
 * Usage: shapes SHAPE OUTDIR, SHAPE one of
 *   many     300 locations of every type in location groups of every type under
 *            a three-level system tree with domains and properties; empty
 *            locations (an event file without events; otf2-print fails on a
 *            location without one, so tests remove files themselves); huge
 *            location ids; timestamps far from 0; an odd timer resolution and
 *            a non-zero global offset; anchor properties
 *   local    Score-P-like: every location writes local definitions (strings,
 *            regions, attributes, groups, comms, metrics, parameters) with its
 *            own ids, mapping tables of every kind (dense and sparse) and clock
 *            offsets; events carry attributes of all 25 types, reference ones
 *            with local ids; huge global ids; the threads' event files span
 *            two chunks
 *   local-undef  local, plus OTF2_UNDEFINED field values (region, parameter,
 *            comm, peer, tag), which python3-otf2's reader refuses
 *   strings  strings of every byte 1..255, empty and 70000-byte strings as
 *            region, location, group, attribute and parameter names and values;
 *            a timer of 1 tick per second
 *   events   every record the 3.0.2 writer writes (72 event, 20 snapshot and
 *            36 global definition records), in passes of different values:
 *            extremes, OTF2_UNDEFINED, huge and dangling ids, unknown enum
 *            values; redefinitions
 */
#include <otf2/otf2.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK( x ) do { OTF2_ErrorCode e_ = ( x ); if ( e_ != OTF2_SUCCESS ) { \
            fprintf( stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, OTF2_Error_GetName( e_ ) ); \
            exit( 1 ); } } while ( 0 )

static OTF2_FlushType
pre_flush( void* u, OTF2_FileType ft, OTF2_LocationRef l, void* c, bool final )
{
    ( void )u; ( void )ft; ( void )l; ( void )c; ( void )final;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp
post_flush( void* u, OTF2_FileType ft, OTF2_LocationRef l )
{
    ( void )u; ( void )ft; ( void )l;
    return 0;
}
static OTF2_FlushCallbacks flush_callbacks = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };

static OTF2_Archive*
open_archive( const char* dir, uint64_t evt_chunk, uint64_t def_chunk )
{
    OTF2_Archive* ar = OTF2_Archive_Open( dir, "traces", OTF2_FILEMODE_WRITE, evt_chunk, def_chunk,
                                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE );
    if ( !ar )
    {
        fprintf( stderr, "cannot open archive in %s\n", dir );
        exit( 1 );
    }
    CK( OTF2_Archive_SetFlushCallbacks( ar, &flush_callbacks, NULL ) );
    CK( OTF2_Archive_SetSerialCollectiveCallbacks( ar ) );
    CK( OTF2_Archive_SetCreator( ar, "hpcfs testdata/gen/otf2ref" ) );
    CK( OTF2_Archive_SetDescription( ar, "shapes" ) );
    CK( OTF2_Archive_SetMachineName( ar, "testbox" ) );
    return ar;
}

static OTF2_AttributeValue
av( uint64_t v )
{
    OTF2_AttributeValue a;
    memset( &a, 0, sizeof( a ) );
    a.uint64 = v;
    return a;
}

/* ------------------------------------------------------------------ many */

#define NLOC 300

static void
shape_many( const char* dir )
{
    OTF2_Archive* ar = open_archive( dir, 256 * 1024, 256 * 1024 );
    /* Anchor properties (names are NAMESPACE::NAME, upper-cased by the
     * library), one overwritten, values with separators and quotes. */
    CK( OTF2_Archive_SetProperty( ar, "HPCFS::SHAPE", "many, \"300\" = locations", false ) );
    CK( OTF2_Archive_SetBoolProperty( ar, "hpcfs::flag", true, false ) );
    CK( OTF2_Archive_SetProperty( ar, "HPCFS::NS::TAB", "a\tb", false ) );
    CK( OTF2_Archive_SetBoolProperty( ar, "HPCFS::FLAG", false, true ) );
    const uint64_t t0 = 1000000000000000ULL;
    /* Locations: ids, types, groups. Group 0..3 processes, 4 accelerator,
     * 5 unknown. */
    static uint64_t ids[ NLOC ];
    static int      types[ NLOC ], groups[ NLOC ], nevents[ NLOC ];
    for ( int i = 0; i < NLOC; i++ )
    {
        int g = i < 240 ? i / 60 : i < 280 ? 4 : 5;
        groups[ i ] = g;
        ids[ i ]    = ( ( uint64_t )g << 32 ) + ( uint64_t )( i % 60 );
        types[ i ]  = g == 4 ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
                      : g == 5 ? ( i % 2 ? OTF2_LOCATION_TYPE_UNKNOWN : OTF2_LOCATION_TYPE_METRIC )
                      : i % 60 == 59 ? OTF2_LOCATION_TYPE_METRIC : OTF2_LOCATION_TYPE_CPU_THREAD;
        nevents[ i ] = i % 10 == 3 ? 0 : 4 + 2 * ( i % 5 );
    }
    ids[ NLOC - 1 ] = UINT64_MAX - 1; /* the largest defined location id */
    ids[ NLOC - 2 ] = UINT64_MAX - 2;

    CK( OTF2_Archive_OpenEvtFiles( ar ) );
    for ( int i = 0; i < NLOC; i++ )
    {
        OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter( ar, ids[ i ] );
        uint64_t        t = t0 + ( uint64_t )i * 7919;
        for ( int e = 0; e < nevents[ i ] / 2; e++ )
        {
            CK( OTF2_EvtWriter_Enter( w, NULL, t, ( uint32_t )( e % 3 ) ) );
            t += 1 + ( uint64_t )( i * e ) % 97;
        }
        for ( int e = nevents[ i ] / 2 - 1; e >= 0; e-- )
        {
            CK( OTF2_EvtWriter_Leave( w, NULL, t, ( uint32_t )( e % 3 ) ) );
            t += 3;
        }
        CK( OTF2_Archive_CloseEvtWriter( ar, w ) );
    }
    CK( OTF2_Archive_CloseEvtFiles( ar ) );

    OTF2_GlobalDefWriter* gw = OTF2_Archive_GetGlobalDefWriter( ar );
    CK( OTF2_GlobalDefWriter_WriteClockProperties( gw, 2400000001ULL, t0 - 5, 10000000ULL, 1764547200000000000ULL ) );
    char name[ 64 ];
    uint32_t s = 0;
    const char* fixed[] = { "", "machine", "node", "socket", "main", "compute", "wait", "process", "accelerator", "other", "MPI_COMM_WORLD", "ranks", "color", "numa" };
    for ( ; s < sizeof( fixed ) / sizeof( fixed[ 0 ] ); s++ )
    {
        CK( OTF2_GlobalDefWriter_WriteString( gw, s, fixed[ s ] ) );
    }
    const uint32_t s_loc = s;
    for ( int i = 0; i < NLOC; i++ )
    {
        snprintf( name, sizeof name, "location %d", i );
        CK( OTF2_GlobalDefWriter_WriteString( gw, s++, name ) );
    }
    const uint32_t s_grp = s;
    for ( int g = 0; g < 6; g++ )
    {
        snprintf( name, sizeof name, "group %d", g );
        CK( OTF2_GlobalDefWriter_WriteString( gw, s++, name ) );
    }
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNode( gw, 0, 1, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNode( gw, 1, 2, 2, 0 ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNode( gw, 2, 2, 2, 0 ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNode( gw, 3, 3, 3, 1 ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNode( gw, 4, 3, 3, 2 ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain( gw, 0, OTF2_SYSTEM_TREE_DOMAIN_MACHINE ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain( gw, 1, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain( gw, 3, OTF2_SYSTEM_TREE_DOMAIN_SOCKET ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain( gw, 3, OTF2_SYSTEM_TREE_DOMAIN_NUMA ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty( gw, 1, 12, OTF2_TYPE_UINT64, av( 7 ) ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty( gw, 2, 13, OTF2_TYPE_STRING, av( 9 ) ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty( gw, 4, 12, OTF2_TYPE_INT8, av( 0xff ) ) );
    for ( int g = 0; g < 6; g++ )
    {
        OTF2_LocationGroupType gt = g < 4 ? OTF2_LOCATION_GROUP_TYPE_PROCESS
                                    : g == 4 ? OTF2_LOCATION_GROUP_TYPE_ACCELERATOR : OTF2_LOCATION_GROUP_TYPE_UNKNOWN;
        CK( OTF2_GlobalDefWriter_WriteLocationGroup( gw, ( uint32_t )g, s_grp + ( uint32_t )g, gt, g < 2 ? 3 : 4,
                                                     g == 4 ? 1 : OTF2_UNDEFINED_LOCATION_GROUP ) );
    }
    CK( OTF2_GlobalDefWriter_WriteLocationGroupProperty( gw, 4, 12, OTF2_TYPE_UINT32, av( 3 ) ) );
    for ( int i = 0; i < NLOC; i++ )
    {
        CK( OTF2_GlobalDefWriter_WriteLocation( gw, ids[ i ], s_loc + ( uint32_t )i, ( OTF2_LocationType )types[ i ],
                                                ( uint64_t )nevents[ i ], ( uint32_t )groups[ i ] ) );
    }
    CK( OTF2_GlobalDefWriter_WriteLocationProperty( gw, ids[ NLOC - 1 ], 12, OTF2_TYPE_DOUBLE, ( OTF2_AttributeValue ){ .float64 = -0.5 } ) );
    CK( OTF2_GlobalDefWriter_WriteRegion( gw, 0, 4, 4, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0 ) );
    CK( OTF2_GlobalDefWriter_WriteRegion( gw, 1, 5, 5, 0, OTF2_REGION_ROLE_LOOP, OTF2_PARADIGM_COMPILER, OTF2_REGION_FLAG_DYNAMIC, 0, 1, 2 ) );
    CK( OTF2_GlobalDefWriter_WriteRegion( gw, 2, 6, 6, 0, OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_PHASE, 0, 0, 0 ) );
    uint64_t members[ 4 ] = { 0, 1, 2, 3 };
    CK( OTF2_GlobalDefWriter_WriteGroup( gw, 0, 11, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 4, ids ) );
    CK( OTF2_GlobalDefWriter_WriteGroup( gw, 1, 11, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 4, members ) );
    CK( OTF2_GlobalDefWriter_WriteComm( gw, 0, 10, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS ) );
    CK( OTF2_Archive_CloseGlobalDefWriter( ar, gw ) );
    CK( OTF2_Archive_Close( ar ) );
}

/* ----------------------------------------------------------------- local */

#define LRANKS 4
#define LTHREADS 2
/* Global ids far from 0, local ids small: the mapping tables bridge them. */
#define GREGION 4000000000u
#define GSTRING 3000000000u
#define GATTR 100000u

static const OTF2_Type attr_types[] = {
    OTF2_TYPE_UINT8, OTF2_TYPE_UINT16, OTF2_TYPE_UINT32, OTF2_TYPE_UINT64, OTF2_TYPE_INT8, OTF2_TYPE_INT16,
    OTF2_TYPE_INT32, OTF2_TYPE_INT64, OTF2_TYPE_FLOAT, OTF2_TYPE_DOUBLE, OTF2_TYPE_STRING, OTF2_TYPE_ATTRIBUTE,
    OTF2_TYPE_LOCATION, OTF2_TYPE_REGION, OTF2_TYPE_GROUP, OTF2_TYPE_METRIC, OTF2_TYPE_COMM, OTF2_TYPE_PARAMETER,
    OTF2_TYPE_RMA_WIN, OTF2_TYPE_SOURCE_CODE_LOCATION, OTF2_TYPE_CALLING_CONTEXT, OTF2_TYPE_INTERRUPT_GENERATOR,
    OTF2_TYPE_IO_FILE, OTF2_TYPE_IO_HANDLE, OTF2_TYPE_LOCATION_GROUP
};
#define NATTR ( int )( sizeof( attr_types ) / sizeof( attr_types[ 0 ] ) )

/* A value of attribute type t for event n: extremes, undefined and local
 * reference ids (mapped or not). */
static OTF2_AttributeValue
attr_value( OTF2_Type t, int n )
{
    OTF2_AttributeValue a = av( 0 );
    switch ( t )
    {
        case OTF2_TYPE_UINT8: a.uint8 = n % 2 ? 255 : 0; break;
        case OTF2_TYPE_UINT16: a.uint16 = n % 2 ? 65535 : 1; break;
        case OTF2_TYPE_UINT32: a.uint32 = n % 2 ? UINT32_MAX : 2; break;
        case OTF2_TYPE_UINT64: a.uint64 = n % 2 ? UINT64_MAX : 1ULL << 63; break;
        case OTF2_TYPE_INT8: a.int8 = n % 2 ? -128 : 127; break;
        case OTF2_TYPE_INT16: a.int16 = n % 2 ? -32768 : 32767; break;
        case OTF2_TYPE_INT32: a.int32 = n % 2 ? INT32_MIN : -1; break;
        case OTF2_TYPE_INT64: a.int64 = n % 2 ? INT64_MIN : INT64_MAX; break;
        case OTF2_TYPE_FLOAT: a.float32 = n % 3 == 0 ? 1e-30f : n % 3 == 1 ? -INFINITY : 3.25f; break;
        case OTF2_TYPE_DOUBLE: a.float64 = n % 3 == 0 ? 1e300 : n % 3 == 1 ? NAN : -0.0; break;
        case OTF2_TYPE_STRING: a.stringRef = n % 4 == 3 ? OTF2_UNDEFINED_STRING : ( uint32_t )( n % 3 ); break;
        case OTF2_TYPE_LOCATION: a.locationRef = n % 2 ? OTF2_UNDEFINED_LOCATION : 1; break;
        case OTF2_TYPE_REGION: a.regionRef = ( uint32_t )( n % 3 ); break;
        case OTF2_TYPE_ATTRIBUTE: a.attributeRef = ( uint32_t )( n % NATTR ); break;
        case OTF2_TYPE_GROUP: case OTF2_TYPE_COMM: case OTF2_TYPE_METRIC: case OTF2_TYPE_PARAMETER:
            a.uint32 = n % 2 ? OTF2_UNDEFINED_UINT32 : 0; break;
        default: a.uint32 = ( uint32_t )n % 4; break; /* unmapped: stays as written */
    }
    return a;
}

static void
shape_local( const char* dir, bool undef )
{
    OTF2_Archive* ar = open_archive( dir, 256 * 1024, 256 * 1024 );
    const uint64_t t0 = 500000000000000000ULL;
    uint64_t       locs[ LRANKS * LTHREADS ];
    for ( int r = 0; r < LRANKS; r++ )
    {
        for ( int th = 0; th < LTHREADS; th++ )
        {
            locs[ r * LTHREADS + th ] = ( ( uint64_t )th << 32 ) + ( uint64_t )r;
        }
    }
    const char* attr_names[ NATTR ];
    char        buf[ NATTR ][ 32 ];
    for ( int i = 0; i < NATTR; i++ )
    {
        snprintf( buf[ i ], sizeof buf[ i ], "attr_%d", ( int )attr_types[ i ] );
        attr_names[ i ] = buf[ i ];
    }
    CK( OTF2_Archive_OpenEvtFiles( ar ) );
    CK( OTF2_Archive_OpenDefFiles( ar ) );
    OTF2_AttributeList* al = OTF2_AttributeList_New();
    for ( int l = 0; l < LRANKS * LTHREADS; l++ )
    {
        int              rank = l / LTHREADS, th = l % LTHREADS;
        OTF2_EvtWriter*  w    = OTF2_Archive_GetEvtWriter( ar, locs[ l ] );
        OTF2_DefWriter*  dw   = OTF2_Archive_GetDefWriter( ar, locs[ l ] );
        /* Local definitions as Score-P writes them: the location's own
         * strings, regions and attributes with local ids 0.. (each location
         * numbers its regions in another order). */
        const char* rnames[ 3 ] = { "main", "solve", "MPI_Send" };
        for ( uint32_t i = 0; i < 3; i++ )
        {
            CK( OTF2_DefWriter_WriteString( dw, i, rnames[ ( i + ( uint32_t )l ) % 3 ] ) );
            CK( OTF2_DefWriter_WriteRegion( dw, i, i, i, OTF2_UNDEFINED_STRING, OTF2_REGION_ROLE_FUNCTION,
                                            OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0 ) );
        }
        for ( int i = 0; i < NATTR; i++ )
        {
            CK( OTF2_DefWriter_WriteString( dw, 3 + ( uint32_t )i, attr_names[ i ] ) );
            CK( OTF2_DefWriter_WriteAttribute( dw, ( uint32_t )i, 3 + ( uint32_t )i, OTF2_UNDEFINED_STRING, attr_types[ i ] ) );
        }
        /* Mapping tables: regions and strings rotate with the location,
         * sparse ones for attributes and locations, one of every other kind. */
        uint64_t rmap[ 3 ], smap[ 3 ];
        for ( int i = 0; i < 3; i++ )
        {
            rmap[ i ] = GREGION + ( uint64_t )( ( i + l ) % 3 );
            smap[ i ] = GSTRING + ( uint64_t )( ( i + l ) % 3 );
        }
        OTF2_IdMap* m = OTF2_IdMap_CreateFromUint64Array( 3, rmap, false );
        CK( OTF2_DefWriter_WriteMappingTable( dw, OTF2_MAPPING_REGION, m ) );
        OTF2_IdMap_Free( m );
        m = OTF2_IdMap_CreateFromUint64Array( 3, smap, true );
        CK( OTF2_DefWriter_WriteMappingTable( dw, OTF2_MAPPING_STRING, m ) );
        OTF2_IdMap_Free( m );
        m = OTF2_IdMap_Create( OTF2_ID_MAP_SPARSE, 8 );
        for ( int i = 0; i < NATTR; i++ )
        {
            CK( OTF2_IdMap_AddIdPair( m, ( uint64_t )i, GATTR + ( uint64_t )( NATTR - 1 - i ) ) );
        }
        CK( OTF2_DefWriter_WriteMappingTable( dw, OTF2_MAPPING_ATTRIBUTE, m ) );
        OTF2_IdMap_Free( m );
        m = OTF2_IdMap_Create( OTF2_ID_MAP_SPARSE, 2 );
        CK( OTF2_IdMap_AddIdPair( m, 1, locs[ ( l + 1 ) % ( LRANKS * LTHREADS ) ] ) );
        CK( OTF2_DefWriter_WriteMappingTable( dw, OTF2_MAPPING_LOCATION, m ) );
        OTF2_IdMap_Free( m );
        uint64_t params[ 3 ] = { 10, 11, 12 };
        m = OTF2_IdMap_CreateFromUint64Array( 3, params, false );
        CK( OTF2_DefWriter_WriteMappingTable( dw, OTF2_MAPPING_PARAMETER, m ) );
        OTF2_IdMap_Free( m );
        const OTF2_MappingType single[] = { OTF2_MAPPING_GROUP, OTF2_MAPPING_METRIC, OTF2_MAPPING_COMM };
        for ( int k = 0; k < 3; k++ )
        {
            uint64_t one = 7 + ( uint64_t )k;
            m = OTF2_IdMap_CreateFromUint64Array( 1, &one, false );
            CK( OTF2_DefWriter_WriteMappingTable( dw, single[ k ], m ) );
            OTF2_IdMap_Free( m );
        }
        /* Clock offsets: none on rank 0's locations, 1 on rank 1, 2 and 4
         * on the others (interpolated between, extrapolated outside). */
        int noff = rank == 0 ? 0 : rank == 1 ? 1 : rank == 2 ? 2 : 4;
        for ( int k = 0; k < noff; k++ )
        {
            CK( OTF2_DefWriter_WriteClockOffset( dw, t0 + ( uint64_t )k * 50000, ( int64_t )( k * 37 - 60 ) * ( th ? -1 : 1 ) + rank * 1000,
                                                 k * 0.25 ) );
        }
        CK( OTF2_Archive_CloseDefWriter( ar, dw ) );

        uint64_t t = t0 + ( uint64_t )l * 131;
        /* Threads iterate long enough for event files of two chunks, read
         * through the mapping tables and clock offsets across the boundary. */
        for ( int it = 0; it < ( th ? 1500 : 6 ); it++ )
        {
            for ( int a = 0; a < NATTR; a++ )
            {
                if ( ( a + it ) % 2 == 0 )
                {
                    CK( OTF2_AttributeList_AddAttribute( al, ( uint32_t )a, attr_types[ a ], attr_value( attr_types[ a ], it + l ) ) );
                }
            }
            CK( OTF2_EvtWriter_Enter( w, al, t += 1000, 0 ) );
            CK( OTF2_EvtWriter_Enter( w, NULL, t += 1000, 1 ) );
            CK( OTF2_EvtWriter_ParameterString( w, NULL, t += 3, 0, ( uint32_t )( it % 3 ) ) );
            CK( OTF2_EvtWriter_ParameterInt( w, NULL, t += 3, 1, it % 2 ? INT64_MIN : -1 ) );
            CK( OTF2_EvtWriter_ParameterUnsignedInt( w, NULL, t += 3, undef ? OTF2_UNDEFINED_PARAMETER : 2, UINT64_MAX ) );
            if ( th == 0 )
            {
                CK( OTF2_EvtWriter_Enter( w, NULL, t += 10, 2 ) );
                uint32_t peer = ( uint32_t )( rank + ( it % 2 ? 1 : LRANKS - 1 ) ) % LRANKS;
                CK( OTF2_EvtWriter_MpiSend( w, NULL, t += 10, peer, 0, ( uint32_t )it, it == 5 ? UINT64_MAX : ( uint64_t )it * 1024 ) );
                CK( OTF2_EvtWriter_Leave( w, NULL, t += 10, 2 ) );
                uint32_t from = ( uint32_t )( rank + ( it % 2 ? LRANKS - 1 : 1 ) ) % LRANKS;
                CK( OTF2_EvtWriter_MpiRecv( w, NULL, t += 500, from, 0, ( uint32_t )it, it == 5 ? UINT64_MAX : ( uint64_t )it * 1024 ) );
            }
            if ( undef )
            {
                CK( OTF2_EvtWriter_MpiSend( w, NULL, t += 5, OTF2_UNDEFINED_UINT32, OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_UINT32, 0 ) );
                CK( OTF2_EvtWriter_Enter( w, NULL, t += 9, OTF2_UNDEFINED_REGION ) );
                CK( OTF2_EvtWriter_Leave( w, NULL, t += 9, OTF2_UNDEFINED_REGION ) );
            }
            OTF2_Type      mt = OTF2_TYPE_INT64;
            OTF2_MetricValue mv;
            mv.signed_int = -it;
            CK( OTF2_EvtWriter_Metric( w, NULL, t += 7, 0, 1, &mt, &mv ) );
            CK( OTF2_EvtWriter_Leave( w, NULL, t += 100, 1 ) );
            CK( OTF2_EvtWriter_Leave( w, NULL, t += 100, 0 ) );
        }
        CK( OTF2_Archive_CloseEvtWriter( ar, w ) );
    }
    OTF2_AttributeList_Delete( al );
    CK( OTF2_Archive_CloseEvtFiles( ar ) );
    CK( OTF2_Archive_CloseDefFiles( ar ) );

    OTF2_GlobalDefWriter* gw = OTF2_Archive_GetGlobalDefWriter( ar );
    CK( OTF2_GlobalDefWriter_WriteClockProperties( gw, 1000000000ULL, 0, UINT64_MAX, OTF2_UNDEFINED_TIMESTAMP ) );
    const char* rnames[ 3 ] = { "main", "solve", "MPI_Send" };
    for ( uint32_t i = 0; i < 3; i++ )
    {
        CK( OTF2_GlobalDefWriter_WriteString( gw, GSTRING + i, rnames[ i ] ) );
    }
    for ( uint32_t i = 0; i < NATTR; i++ )
    {
        CK( OTF2_GlobalDefWriter_WriteString( gw, 10 + i, attr_names[ i ] ) );
    }
    CK( OTF2_GlobalDefWriter_WriteString( gw, 100, "node" ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, 101, "rank" ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, 102, "thread" ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, 103, "MPI_COMM_WORLD" ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, 104, "value" ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, 105, "param" ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNode( gw, 0, 100, 100, OTF2_UNDEFINED_SYSTEM_TREE_NODE ) );
    for ( uint32_t r = 0; r < LRANKS; r++ )
    {
        CK( OTF2_GlobalDefWriter_WriteLocationGroup( gw, r, 101, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP ) );
    }
    for ( int l = 0; l < LRANKS * LTHREADS; l++ )
    {
        CK( OTF2_GlobalDefWriter_WriteLocation( gw, locs[ l ], 102, OTF2_LOCATION_TYPE_CPU_THREAD, 0, ( uint32_t )( l / LTHREADS ) ) );
    }
    for ( uint32_t i = 0; i < 3; i++ )
    {
        CK( OTF2_GlobalDefWriter_WriteRegion( gw, GREGION + i, GSTRING + i, GSTRING + i, OTF2_UNDEFINED_STRING,
                                              i == 2 ? OTF2_REGION_ROLE_POINT2POINT : OTF2_REGION_ROLE_FUNCTION,
                                              i == 2 ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                                              OTF2_UNDEFINED_STRING, 0, 0 ) );
    }
    for ( uint32_t i = 0; i < ( uint32_t )NATTR; i++ )
    {
        CK( OTF2_GlobalDefWriter_WriteAttribute( gw, GATTR + ( uint32_t )NATTR - 1 - i, 10 + i, OTF2_UNDEFINED_STRING, attr_types[ i ] ) );
    }
    uint64_t ranks[ LRANKS ];
    for ( int r = 0; r < LRANKS; r++ )
    {
        ranks[ r ] = locs[ r * LTHREADS ];
    }
    CK( OTF2_GlobalDefWriter_WriteGroup( gw, 6, 103, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, LRANKS, ranks ) );
    uint64_t idx[ LRANKS ] = { 0, 1, 2, 3 };
    CK( OTF2_GlobalDefWriter_WriteGroup( gw, 7, 103, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, LRANKS, idx ) );
    CK( OTF2_GlobalDefWriter_WriteComm( gw, 9, 103, 7, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE ) );
    OTF2_MetricMemberRef mm = 0;
    CK( OTF2_GlobalDefWriter_WriteMetricMember( gw, 0, 104, 104, OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT,
                                                OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, -3, 104 ) );
    CK( OTF2_GlobalDefWriter_WriteMetricClass( gw, 8, 1, &mm, OTF2_METRIC_SYNCHRONOUS, OTF2_RECORDER_KIND_ABSTRACT ) );
    CK( OTF2_GlobalDefWriter_WriteParameter( gw, 10, 105, OTF2_PARAMETER_TYPE_STRING ) );
    CK( OTF2_GlobalDefWriter_WriteParameter( gw, 11, 105, OTF2_PARAMETER_TYPE_INT64 ) );
    CK( OTF2_GlobalDefWriter_WriteParameter( gw, 12, 105, OTF2_PARAMETER_TYPE_UINT64 ) );
    /* What the unmapped reference-typed attribute values name (0..3). */
    CK( OTF2_GlobalDefWriter_WriteIoParadigm( gw, 0, 105, 105, OTF2_IO_PARADIGM_CLASS_SERIAL, OTF2_IO_PARADIGM_FLAG_OS, 0, NULL, NULL, NULL ) );
    for ( uint32_t i = 0; i < 4; i++ )
    {
        CK( OTF2_GlobalDefWriter_WriteRmaWin( gw, i, 104, 9, OTF2_RMA_WIN_FLAG_NONE ) );
        CK( OTF2_GlobalDefWriter_WriteSourceCodeLocation( gw, i, 104, i * 1000 ) );
        CK( OTF2_GlobalDefWriter_WriteCallingContext( gw, i, GREGION + i % 3, i, i ? i - 1 : OTF2_UNDEFINED_CALLING_CONTEXT ) );
        CK( OTF2_GlobalDefWriter_WriteInterruptGenerator( gw, i, 104, OTF2_INTERRUPT_GENERATOR_MODE_COUNT, OTF2_BASE_BINARY, -( int64_t )i, UINT64_MAX - i ) );
        CK( OTF2_GlobalDefWriter_WriteIoRegularFile( gw, i, 104, 0 ) );
        CK( OTF2_GlobalDefWriter_WriteIoHandle( gw, i, 104, i, 0, OTF2_IO_HANDLE_FLAG_NONE, OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE ) );
    }
    CK( OTF2_Archive_CloseGlobalDefWriter( ar, gw ) );
    CK( OTF2_Archive_Close( ar ) );
}

/* --------------------------------------------------------------- strings */

static void
shape_strings( const char* dir )
{
    OTF2_Archive* ar = open_archive( dir, 256 * 1024, 1024 * 1024 );
    /* Strings: 0 empty, 1 every byte 1..255, 2 a 70000-byte name, 3..257 one
     * byte each (1..255). */
    char all[ 256 ];
    for ( int i = 1; i < 256; i++ )
    {
        all[ i - 1 ] = ( char )i;
    }
    all[ 255 ] = 0;
    char* big = malloc( 70001 );
    for ( int i = 0; i < 70000; i++ )
    {
        big[ i ] = "a,\"\n\tb\xc3\xa9\xff"[ i % 10 ];
    }
    big[ 70000 ] = 0;
    const int nreg = 258;

    CK( OTF2_Archive_OpenEvtFiles( ar ) );
    OTF2_AttributeList* al = OTF2_AttributeList_New();
    for ( uint64_t l = 0; l < 2; l++ )
    {
        OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter( ar, l );
        uint64_t        t = 1000000000ULL * ( l + 1 );
        for ( int r = 0; r < nreg; r++ )
        {
            CK( OTF2_AttributeList_AddStringRef( al, 0, ( uint32_t )r ) );
            CK( OTF2_EvtWriter_Enter( w, al, t++, ( uint32_t )r ) );
            CK( OTF2_EvtWriter_ParameterString( w, NULL, t++, 0, ( uint32_t )( nreg - 1 - r ) ) );
            CK( OTF2_EvtWriter_Leave( w, NULL, t++, ( uint32_t )r ) );
        }
        CK( OTF2_EvtWriter_Enter( w, NULL, t += 1000000000000ULL, 0 ) ); /* 10^12 s at 1 tick per second */
        CK( OTF2_EvtWriter_Leave( w, NULL, t += 1, 0 ) );
        CK( OTF2_Archive_CloseEvtWriter( ar, w ) );
    }
    OTF2_AttributeList_Delete( al );
    CK( OTF2_Archive_CloseEvtFiles( ar ) );

    OTF2_GlobalDefWriter* gw = OTF2_Archive_GetGlobalDefWriter( ar );
    CK( OTF2_GlobalDefWriter_WriteClockProperties( gw, 1, 999999999ULL, 2000000000000ULL, 0 ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, 0, "" ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, 1, all ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, 2, big ) );
    for ( int i = 1; i < 256; i++ )
    {
        char one[ 2 ] = { ( char )i, 0 };
        CK( OTF2_GlobalDefWriter_WriteString( gw, 2 + ( uint32_t )i, one ) );
    }
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNode( gw, 0, 1, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE ) );
    CK( OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty( gw, 0, 1, OTF2_TYPE_STRING, av( 2 ) ) );
    CK( OTF2_GlobalDefWriter_WriteLocationGroup( gw, 0, 1, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP ) );
    CK( OTF2_GlobalDefWriter_WriteLocation( gw, 0, 1, OTF2_LOCATION_TYPE_CPU_THREAD, 2 * nreg + 2, 0 ) );
    CK( OTF2_GlobalDefWriter_WriteLocation( gw, 1, 0, OTF2_LOCATION_TYPE_CPU_THREAD, 2 * nreg + 2, 0 ) );
    for ( int r = 0; r < nreg; r++ )
    {
        CK( OTF2_GlobalDefWriter_WriteRegion( gw, ( uint32_t )r, ( uint32_t )r, ( uint32_t )( nreg - 1 - r ), 1,
                                              OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 2,
                                              ( uint32_t )r, UINT32_MAX - 1 ) );
    }
    CK( OTF2_GlobalDefWriter_WriteAttribute( gw, 0, 1, 2, OTF2_TYPE_STRING ) );
    CK( OTF2_GlobalDefWriter_WriteParameter( gw, 0, 1, OTF2_PARAMETER_TYPE_STRING ) );
    uint64_t members[ 2 ] = { 0, 1 };
    CK( OTF2_GlobalDefWriter_WriteGroup( gw, 0, 1, OTF2_GROUP_TYPE_LOCATIONS, OTF2_PARADIGM_UNKNOWN, OTF2_GROUP_FLAG_NONE, 2, members ) );
    CK( OTF2_Archive_CloseGlobalDefWriter( ar, gw ) );
    CK( OTF2_Archive_Close( ar ) );
    free( big );
}

/* ---------------------------------------------------------------- events */

/* Values for the k-th pass over every record: zero, small, the largest
 * defined and OTF2_UNDEFINED, and byte-length boundaries of the compressed
 * integers. */
static uint64_t
u64( int k )
{
    static const uint64_t v[] = { 0, 1, UINT64_MAX, 1ULL << 40, 255, 256 };
    return v[ k % 6 ];
}
static int64_t
i64( int k )
{
    static const int64_t v[] = { 0, -1, INT64_MIN, INT64_MAX, 127, -128 };
    return v[ k % 6 ];
}
static uint32_t
u32( int k )
{
    static const uint32_t v[] = { 0, 1, UINT32_MAX, 1u << 31, 255, 256 };
    return v[ k % 6 ];
}
/* Definition ids: 0, 1 and a huge one are defined, UINT32_MAX is undefined. */
#define HUGE32 ( UINT32_MAX - 1 )
static uint32_t
self( int k )
{
    static const uint32_t v[] = { 0, 1, HUGE32 };
    return v[ k % 3 ];
}
static uint32_t
ref( int k )
{
    static const uint32_t v[] = { 0, 1, HUGE32, UINT32_MAX };
    return v[ k % 4 ];
}
static uint64_t
loc( int k )
{
    static const uint64_t v[] = { 0, 1, UINT64_MAX - 1 };
    return v[ k % 3 ];
}
/* Enumeration and flag values, 255 and 4 are unknown to most. */
static uint32_t
en( int k )
{
    static const uint32_t v[] = { 0, 1, 2, 3, 255, 4 };
    return v[ k % 6 ];
}
static OTF2_Type
atype( int k )
{
    return attr_types[ ( k * 7 ) % NATTR ];
}
static OTF2_Type
mtype( int k )
{
    static const OTF2_Type v[] = { OTF2_TYPE_INT64, OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE };
    return v[ k % 3 ];
}
static const uint64_t*
arr64( int k )
{
    static const uint64_t v[] = { 0, 1, UINT64_MAX - 1, 7, 1ULL << 40, 256 };
    return v + k % 3;
}
static const uint32_t*
arr32( int k )
{
    static const uint32_t v[] = { 0, 1, HUGE32, 7, 1u << 20, 256 };
    return v + k % 3;
}
static const OTF2_IoParadigmProperty ioprops[]  = { OTF2_IO_PARADIGM_PROPERTY_VERSION };
static const OTF2_Type               iotypes[]  = { OTF2_TYPE_STRING };
static const OTF2_AttributeValue     iovalues[] = { { .stringRef = 1 } };

/* metric_values fills the three metric values of pass k and their types. */
static void
metric_values( int k, OTF2_Type* types, OTF2_MetricValue* values )
{
    for ( int i = 0; i < 3; i++ )
    {
        types[ i ] = mtype( k + i );
        if ( types[ i ] == OTF2_TYPE_DOUBLE )
        {
            values[ i ].floating_point = k % 2 ? -1.5e-300 : INFINITY;
        }
        else
        {
            values[ i ].unsigned_int = u64( k + i );
        }
    }
}

/* attrs fills al with attributes of pass k (none every fourth pass). */
static OTF2_AttributeList*
attrs( OTF2_AttributeList* al, int k )
{
    if ( k % 4 == 3 )
    {
        return NULL;
    }
    for ( int a = k % 3; a < NATTR; a += 3 )
    {
        CK( OTF2_AttributeList_AddAttribute( al, ( uint32_t )a, attr_types[ a ], attr_value( attr_types[ a ], k + a ) ) );
    }
    return al;
}

/* shape_events writes every record the OTF2 3.0.2 writer has (events,
 * snapshots and global definitions, one call per writer function of its
 * headers) in passes of different field values, on two locations, and a
 * third defined location with an empty event file. */
static void
shape_events( const char* dir )
{
    OTF2_Archive* ar = open_archive( dir, 256 * 1024, 256 * 1024 );
    CK( OTF2_Archive_OpenEvtFiles( ar ) );
    OTF2_AttributeList* al = OTF2_AttributeList_New();
    OTF2_StringRef      args[ 3 ] = { 0, 1, HUGE32 };
    for ( int l = 0; l < 3; l++ )
    {
        OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter( ar, loc( l ) );
        uint64_t        t = 7000000 + ( uint64_t )l * 3;
        for ( int k = 0; l < 2 && k < 6; k++ )
        {
            uint8_t          NM = ( uint8_t )( k % 3 + 1 );
            OTF2_Type        mtypes[ 3 ];
            OTF2_MetricValue mvalues[ 3 ];
            metric_values( k, mtypes, mvalues );
            CK( OTF2_EvtWriter_BufferFlush( w, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ) ) );
            CK( OTF2_EvtWriter_MeasurementOnOff( w, attrs( al, k ), t += 10, ( OTF2_MeasurementMode )en( k ) ) );
            CK( OTF2_EvtWriter_Enter( w, attrs( al, k ), t += 10, ref( k ) ) );
            CK( OTF2_EvtWriter_Leave( w, attrs( al, k ), t += 10, ref( k ) ) );
            CK( OTF2_EvtWriter_MpiSend( w, attrs( al, k ), t += 10, u32( k ), ref( k ), u32( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_MpiIsend( w, attrs( al, k ), t += 10, u32( k ), ref( k ), u32( k ), u64( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_MpiIsendComplete( w, attrs( al, k ), t += 10, u64( k ) ) );
            CK( OTF2_EvtWriter_MpiIrecvRequest( w, attrs( al, k ), t += 10, u64( k ) ) );
            CK( OTF2_EvtWriter_MpiRecv( w, attrs( al, k ), t += 10, u32( k ), ref( k ), u32( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_MpiIrecv( w, attrs( al, k ), t += 10, u32( k ), ref( k ), u32( k ), u64( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_MpiRequestTest( w, attrs( al, k ), t += 10, u64( k ) ) );
            CK( OTF2_EvtWriter_MpiRequestCancelled( w, attrs( al, k ), t += 10, u64( k ) ) );
            CK( OTF2_EvtWriter_MpiCollectiveBegin( w, attrs( al, k ), t += 10 ) );
            CK( OTF2_EvtWriter_MpiCollectiveEnd( w, attrs( al, k ), t += 10, ( OTF2_CollectiveOp )en( k ), ref( k ), u32( k ), u64( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_Metric( w, attrs( al, k ), t += 10, ref( k ), NM, mtypes, mvalues ) );
            CK( OTF2_EvtWriter_ParameterString( w, attrs( al, k ), t += 10, ref( k ), ref( k ) ) );
            CK( OTF2_EvtWriter_ParameterInt( w, attrs( al, k ), t += 10, ref( k ), i64( k ) ) );
            CK( OTF2_EvtWriter_ParameterUnsignedInt( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_RmaWinCreate( w, attrs( al, k ), t += 10, ref( k ) ) );
            CK( OTF2_EvtWriter_RmaWinDestroy( w, attrs( al, k ), t += 10, ref( k ) ) );
            CK( OTF2_EvtWriter_RmaCollectiveBegin( w, attrs( al, k ), t += 10 ) );
            CK( OTF2_EvtWriter_RmaCollectiveEnd( w, attrs( al, k ), t += 10, ( OTF2_CollectiveOp )en( k ), ( OTF2_RmaSyncLevel )en( k ), ref( k ), u32( k ), u64( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_RmaGroupSync( w, attrs( al, k ), t += 10, ( OTF2_RmaSyncLevel )en( k ), ref( k ), ref( k ) ) );
            CK( OTF2_EvtWriter_RmaRequestLock( w, attrs( al, k ), t += 10, ref( k ), u32( k ), u64( k ), ( OTF2_LockType )en( k ) ) );
            CK( OTF2_EvtWriter_RmaAcquireLock( w, attrs( al, k ), t += 10, ref( k ), u32( k ), u64( k ), ( OTF2_LockType )en( k ) ) );
            CK( OTF2_EvtWriter_RmaTryLock( w, attrs( al, k ), t += 10, ref( k ), u32( k ), u64( k ), ( OTF2_LockType )en( k ) ) );
            CK( OTF2_EvtWriter_RmaReleaseLock( w, attrs( al, k ), t += 10, ref( k ), u32( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_RmaSync( w, attrs( al, k ), t += 10, ref( k ), u32( k ), ( OTF2_RmaSyncType )en( k ) ) );
            CK( OTF2_EvtWriter_RmaWaitChange( w, attrs( al, k ), t += 10, ref( k ) ) );
            CK( OTF2_EvtWriter_RmaPut( w, attrs( al, k ), t += 10, ref( k ), u32( k ), u64( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_RmaGet( w, attrs( al, k ), t += 10, ref( k ), u32( k ), u64( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_RmaAtomic( w, attrs( al, k ), t += 10, ref( k ), u32( k ), ( OTF2_RmaAtomicType )en( k ), u64( k ), u64( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_RmaOpCompleteBlocking( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_RmaOpCompleteNonBlocking( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_RmaOpTest( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_RmaOpCompleteRemote( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_ThreadFork( w, attrs( al, k ), t += 10, ( OTF2_Paradigm )en( k ), u32( k ) ) );
            CK( OTF2_EvtWriter_ThreadJoin( w, attrs( al, k ), t += 10, ( OTF2_Paradigm )en( k ) ) );
            CK( OTF2_EvtWriter_ThreadTeamBegin( w, attrs( al, k ), t += 10, ref( k ) ) );
            CK( OTF2_EvtWriter_ThreadTeamEnd( w, attrs( al, k ), t += 10, ref( k ) ) );
            CK( OTF2_EvtWriter_ThreadAcquireLock( w, attrs( al, k ), t += 10, ( OTF2_Paradigm )en( k ), u32( k ), u32( k ) ) );
            CK( OTF2_EvtWriter_ThreadReleaseLock( w, attrs( al, k ), t += 10, ( OTF2_Paradigm )en( k ), u32( k ), u32( k ) ) );
            CK( OTF2_EvtWriter_ThreadTaskCreate( w, attrs( al, k ), t += 10, ref( k ), u32( k ), u32( k ) ) );
            CK( OTF2_EvtWriter_ThreadTaskSwitch( w, attrs( al, k ), t += 10, ref( k ), u32( k ), u32( k ) ) );
            CK( OTF2_EvtWriter_ThreadTaskComplete( w, attrs( al, k ), t += 10, ref( k ), u32( k ), u32( k ) ) );
            CK( OTF2_EvtWriter_ThreadCreate( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_ThreadBegin( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_ThreadWait( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_ThreadEnd( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_CallingContextEnter( w, attrs( al, k ), t += 10, ref( k ), u32( k ) ) );
            CK( OTF2_EvtWriter_CallingContextLeave( w, attrs( al, k ), t += 10, ref( k ) ) );
            CK( OTF2_EvtWriter_CallingContextSample( w, attrs( al, k ), t += 10, ref( k ), u32( k ), ref( k ) ) );
            CK( OTF2_EvtWriter_IoCreateHandle( w, attrs( al, k ), t += 10, ref( k ), ( OTF2_IoAccessMode )en( k ), ( OTF2_IoCreationFlag )en( k ), ( OTF2_IoStatusFlag )en( k ) ) );
            CK( OTF2_EvtWriter_IoDestroyHandle( w, attrs( al, k ), t += 10, ref( k ) ) );
            CK( OTF2_EvtWriter_IoDuplicateHandle( w, attrs( al, k ), t += 10, ref( k ), ref( k ), ( OTF2_IoStatusFlag )en( k ) ) );
            CK( OTF2_EvtWriter_IoSeek( w, attrs( al, k ), t += 10, ref( k ), i64( k ), ( OTF2_IoSeekOption )en( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_IoChangeStatusFlags( w, attrs( al, k ), t += 10, ref( k ), ( OTF2_IoStatusFlag )en( k ) ) );
            CK( OTF2_EvtWriter_IoDeleteFile( w, attrs( al, k ), t += 10, ref( k ), ref( k ) ) );
            CK( OTF2_EvtWriter_IoOperationBegin( w, attrs( al, k ), t += 10, ref( k ), ( OTF2_IoOperationMode )en( k ), ( OTF2_IoOperationFlag )en( k ), u64( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_IoOperationTest( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_IoOperationIssued( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_IoOperationComplete( w, attrs( al, k ), t += 10, ref( k ), u64( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_IoOperationCancelled( w, attrs( al, k ), t += 10, ref( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_IoAcquireLock( w, attrs( al, k ), t += 10, ref( k ), ( OTF2_LockType )en( k ) ) );
            CK( OTF2_EvtWriter_IoReleaseLock( w, attrs( al, k ), t += 10, ref( k ), ( OTF2_LockType )en( k ) ) );
            CK( OTF2_EvtWriter_IoTryLock( w, attrs( al, k ), t += 10, ref( k ), ( OTF2_LockType )en( k ) ) );
            CK( OTF2_EvtWriter_ProgramBegin( w, attrs( al, k ), t += 10, ref( k ), u32( k ) % 4, args ) );
            CK( OTF2_EvtWriter_ProgramEnd( w, attrs( al, k ), t += 10, i64( k ) ) );
            CK( OTF2_EvtWriter_NonBlockingCollectiveRequest( w, attrs( al, k ), t += 10, u64( k ) ) );
            CK( OTF2_EvtWriter_NonBlockingCollectiveComplete( w, attrs( al, k ), t += 10, ( OTF2_CollectiveOp )en( k ), ref( k ), u32( k ), u64( k ), u64( k ), u64( k ) ) );
            CK( OTF2_EvtWriter_CommCreate( w, attrs( al, k ), t += 10, ref( k ) ) );
            CK( OTF2_EvtWriter_CommDestroy( w, attrs( al, k ), t += 10, ref( k ) ) );
        }
        CK( OTF2_Archive_CloseEvtWriter( ar, w ) );
    }
    CK( OTF2_Archive_CloseEvtFiles( ar ) );

    /* Three snapshots on locations 0 and 1, each of every snapshot record
     * (otf2-print fails on a location without a snapshot file: the empty
     * one gets an empty file). */
    CK( OTF2_Archive_SetNumberOfSnapshots( ar, 3 ) );
    CK( OTF2_Archive_OpenSnapFiles( ar ) );
    for ( int l = 0; l < 3; l++ )
    {
        OTF2_SnapWriter* sw = OTF2_Archive_GetSnapWriter( ar, loc( l ) );
        uint64_t         t  = 8000000 + ( uint64_t )l;
        for ( int k = 0; l < 2 && k < 3; k++ )
        {
            uint8_t          NM = ( uint8_t )( k % 3 + 1 );
            OTF2_Type        mtypes[ 3 ];
            OTF2_MetricValue mvalues[ 3 ];
            metric_values( k, mtypes, mvalues );
            CK( OTF2_SnapWriter_SnapshotStart( sw, attrs( al, k ), t += 10, 18 ) );
            CK( OTF2_SnapWriter_MeasurementOnOff( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), ( OTF2_MeasurementMode )en( k ) ) );
            CK( OTF2_SnapWriter_Enter( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), ref( k ) ) );
            CK( OTF2_SnapWriter_MpiSend( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), u32( k ), ref( k ), u32( k ), u64( k ) ) );
            CK( OTF2_SnapWriter_MpiIsend( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), u32( k ), ref( k ), u32( k ), u64( k ), u64( k ) ) );
            CK( OTF2_SnapWriter_MpiIsendComplete( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), u64( k ) ) );
            CK( OTF2_SnapWriter_MpiRecv( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), u32( k ), ref( k ), u32( k ), u64( k ) ) );
            CK( OTF2_SnapWriter_MpiIrecvRequest( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), u64( k ) ) );
            CK( OTF2_SnapWriter_MpiIrecv( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), u32( k ), ref( k ), u32( k ), u64( k ), u64( k ) ) );
            CK( OTF2_SnapWriter_MpiCollectiveBegin( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ) ) );
            CK( OTF2_SnapWriter_MpiCollectiveEnd( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), ( OTF2_CollectiveOp )en( k ), ref( k ), u32( k ), u64( k ), u64( k ) ) );
            CK( OTF2_SnapWriter_OmpFork( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), u32( k ) ) );
            CK( OTF2_SnapWriter_OmpAcquireLock( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), u32( k ), u32( k ) ) );
            CK( OTF2_SnapWriter_OmpTaskCreate( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), u64( k ) ) );
            CK( OTF2_SnapWriter_OmpTaskSwitch( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), u64( k ) ) );
            CK( OTF2_SnapWriter_Metric( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), ref( k ), NM, mtypes, mvalues ) );
            CK( OTF2_SnapWriter_ParameterString( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), ref( k ), ref( k ) ) );
            CK( OTF2_SnapWriter_ParameterInt( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), ref( k ), i64( k ) ) );
            CK( OTF2_SnapWriter_ParameterUnsignedInt( sw, attrs( al, k ), t += 10, ( OTF2_TimeStamp )( 7000000 + u64( k ) % 100000 ), ref( k ), u64( k ) ) );
            CK( OTF2_SnapWriter_SnapshotEnd( sw, attrs( al, k ), t += 10, u64( k ) ) );
        }
        CK( OTF2_Archive_CloseSnapWriter( ar, sw ) );
    }
    CK( OTF2_Archive_CloseSnapFiles( ar ) );
    OTF2_AttributeList_Delete( al );

    OTF2_GlobalDefWriter* gw = OTF2_Archive_GetGlobalDefWriter( ar );
    CK( OTF2_GlobalDefWriter_WriteClockProperties( gw, 3, 6999990, 100000, UINT64_MAX - 1 ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, 0, "zero" ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, 1, "one" ) );
    CK( OTF2_GlobalDefWriter_WriteString( gw, HUGE32, "huge" ) );
    for ( uint32_t a = 0; a < ( uint32_t )NATTR; a++ )
    {
        CK( OTF2_GlobalDefWriter_WriteAttribute( gw, a, a % 2, ref( ( int )a ), attr_types[ a ] ) );
        CK( OTF2_GlobalDefWriter_WriteLocationProperty( gw, 0, ref( ( int )a ), attr_types[ a ], attr_value( attr_types[ a ], ( int )a ) ) );
    }
    for ( int k = 0; k < 3; k++ )
    {
        CK( OTF2_GlobalDefWriter_WriteParadigm( gw, ( OTF2_Paradigm )( k + 1 ), ref( k ), ( OTF2_ParadigmClass )en( k ) ) );
        /* Property k with a string, a 64-bit mismatched and a boolean value
         * (otf2-print shows a mismatched value of fewer bits with the bytes
         * of its stack above them). */
        const OTF2_Type ptype[] = { OTF2_TYPE_STRING, OTF2_TYPE_DOUBLE, OTF2_TYPE_UINT8 };
        CK( OTF2_GlobalDefWriter_WriteParadigmProperty( gw, ( OTF2_Paradigm )( k + 1 ), ( OTF2_ParadigmProperty )en( k ), ptype[ k ], attr_value( ptype[ k ], k ) ) );
        CK( OTF2_GlobalDefWriter_WriteIoParadigm( gw, self( k ), ref( k ), ref( k ), ( OTF2_IoParadigmClass )en( k ), ( OTF2_IoParadigmFlag )en( k ), ( uint8_t )( k % 2 ), ioprops, iotypes, iovalues ) );
        CK( OTF2_GlobalDefWriter_WriteSystemTreeNode( gw, self( k ), ref( k ), ref( k ), ref( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteLocationGroup( gw, self( k ), ref( k ), ( OTF2_LocationGroupType )en( k ), ref( k ), ref( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteLocation( gw, loc( k ), ref( k ), ( OTF2_LocationType )en( k ), u64( k ), ref( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteRegion( gw, self( k ), ref( k ), ref( k ), ref( k ), ( OTF2_RegionRole )en( k ), ( OTF2_Paradigm )en( k ), ( OTF2_RegionFlag )en( k ), ref( k ), u32( k ), u32( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteCallsite( gw, self( k ), ref( k ), u32( k ), ref( k ), ref( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteCallpath( gw, self( k ), ref( k ), ref( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteGroup( gw, self( k ), ref( k ), ( OTF2_GroupType )en( k ), ( OTF2_Paradigm )en( k ), ( OTF2_GroupFlag )en( k ), ( uint32_t )( k + 1 ), arr64( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteMetricMember( gw, self( k ), ref( k ), ref( k ), ( OTF2_MetricType )en( k ), ( OTF2_MetricMode )en( k ), mtype( k ), ( OTF2_Base )en( k ), i64( k ), ref( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteMetricClass( gw, self( k ), ( uint8_t )( k + 1 ), arr32( k ), ( OTF2_MetricOccurrence )en( k ), ( OTF2_RecorderKind )en( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteMetricInstance( gw, self( k ), ref( k ), loc( k ), ( OTF2_MetricScope )en( k ), u64( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteComm( gw, self( k ), ref( k ), ref( k ), ref( k ), ( OTF2_CommFlag )en( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteParameter( gw, self( k ), ref( k ), ( OTF2_ParameterType )en( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteRmaWin( gw, self( k ), ref( k ), ref( k ), ( OTF2_RmaWinFlag )en( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteMetricClassRecorder( gw, ref( k ), loc( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty( gw, ref( k ), ref( k ), atype( k ), attr_value( atype( k ), k ) ) );
        CK( OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain( gw, ref( k ), ( OTF2_SystemTreeDomain )en( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteLocationGroupProperty( gw, ref( k ), ref( k ), atype( k ), attr_value( atype( k ), k ) ) );
        CK( OTF2_GlobalDefWriter_WriteLocationProperty( gw, loc( k ), ref( k ), atype( k ), attr_value( atype( k ), k ) ) );
        CK( OTF2_GlobalDefWriter_WriteCartDimension( gw, self( k ), ref( k ), u32( k ), ( OTF2_CartPeriodicity )en( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteCartTopology( gw, self( k ), ref( k ), ref( k ), ( uint8_t )( k + 1 ), arr32( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteCartCoordinate( gw, ref( k ), u32( k ), ( uint8_t )( k + 1 ), arr32( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteSourceCodeLocation( gw, self( k ), ref( k ), u32( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteCallingContext( gw, self( k ), ref( k ), ref( k ), ref( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteCallingContextProperty( gw, ref( k ), ref( k ), atype( k ), attr_value( atype( k ), k ) ) );
        CK( OTF2_GlobalDefWriter_WriteInterruptGenerator( gw, self( k ), ref( k ), ( OTF2_InterruptGeneratorMode )en( k ), ( OTF2_Base )en( k ), i64( k ), u64( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteIoFileProperty( gw, ref( k ), ref( k ), atype( k ), attr_value( atype( k ), k ) ) );
        CK( OTF2_GlobalDefWriter_WriteIoRegularFile( gw, self( k ), ref( k ), ref( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteIoDirectory( gw, self( k ) + 10, ref( k ), ref( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteIoHandle( gw, self( k ), ref( k ), ref( k ), ref( k ), ( OTF2_IoHandleFlag )en( k ), ref( k ), ref( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteIoPreCreatedHandleState( gw, ref( k ), ( OTF2_IoAccessMode )en( k ), ( OTF2_IoStatusFlag )en( k ) ) );
        CK( OTF2_GlobalDefWriter_WriteCallpathParameter( gw, ref( k ), ref( k ), atype( k ), attr_value( atype( k ), k ) ) );
        CK( OTF2_GlobalDefWriter_WriteInterComm( gw, self( k ), ref( k ), ref( k ), ref( k ), ref( k ), ( OTF2_CommFlag )en( k ) ) );
    }
    /* Redefinitions: lines before them name the old definitions, lines
     * after and the events the new ones. */
    CK( OTF2_GlobalDefWriter_WriteString( gw, 1, "one, redefined" ) );
    CK( OTF2_GlobalDefWriter_WriteRegion( gw, 1, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 1, 1 ) );
    CK( OTF2_GlobalDefWriter_WriteParadigm( gw, OTF2_PARADIGM_MPI, 1, OTF2_PARADIGM_CLASS_PROCESS ) );
    CK( OTF2_GlobalDefWriter_WriteCallingContext( gw, 7, 1, 1, 1 ) );
    CK( OTF2_Archive_CloseGlobalDefWriter( ar, gw ) );
    CK( OTF2_Archive_Close( ar ) );
}

int
main( int argc, char** argv )
{
    if ( argc != 3 )
    {
        fprintf( stderr, "usage: shapes many|local|local-undef|strings|events OUTDIR\n" );
        return 2;
    }
    if ( strcmp( argv[ 1 ], "many" ) == 0 )
    {
        shape_many( argv[ 2 ] );
    }
    else if ( strcmp( argv[ 1 ], "local" ) == 0 )
    {
        shape_local( argv[ 2 ], false );
    }
    else if ( strcmp( argv[ 1 ], "local-undef" ) == 0 )
    {
        shape_local( argv[ 2 ], true );
    }
    else if ( strcmp( argv[ 1 ], "events" ) == 0 )
    {
        shape_events( argv[ 2 ] );
    }
    else if ( strcmp( argv[ 1 ], "strings" ) == 0 )
    {
        shape_strings( argv[ 2 ] );
    }
    else
    {
        fprintf( stderr, "unknown shape %s\n", argv[ 1 ] );
        return 2;
    }
    return 0;
}

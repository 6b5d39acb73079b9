// Bullet anchor: builds the scene that touche compiles (anchor_scene.h) as rigid bodies in a
// btDiscreteDynamicsWorld with the sequential impulse solver and Bullet's usual settings, and
// times one btDiscreteDynamicsWorld::stepSimulation of dt. See bench_common.h for the figures.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include <btBulletDynamicsCommon.h>

#include "anchor_scene.h"
#include "bench_common.h"

namespace {

btVector3 to_bt(tch_vec3 v) {
    return btVector3(v.x, v.y, v.z);
}

btTransform to_bt(const tch_transform& X) {
    return btTransform(btQuaternion(X.q.x, X.q.y, X.q.z, X.q.w), to_bt(X.p));
}

tch_vec3 from_bt(const btVector3& v) {
    return tch_vec3{v.x(), v.y(), v.z()};
}

// The pair's coefficient is the larger of the two, as for the other anchors (Bullet's own
// default multiplies them).
btScalar combined_friction(const btCollisionObject* a, const btCollisionObject* b) {
    return std::max(a->getFriction(), b->getFriction());
}

bool is_identity(const tch_transform& X) {
    return X.q.w == 1 && X.q.x == 0 && X.q.y == 0 && X.q.z == 0 && X.p.x == 0 && X.p.y == 0 &&
           X.p.z == 0;
}

class BulletScene {
public:
    explicit BulletScene(const anchor_scene& scene)
        : dispatcher_(&config_), world_(&dispatcher_, &broadphase_, &solver_, &config_) {
        gCalculateCombinedFrictionCallback = combined_friction;
        world_.setGravity(to_bt(scene.gravity));
        for (int b = 0; b < scene.body_count; ++b) {
            add_free_body(scene, b);
        }
        for (int g = 0; g < scene.geom_count; ++g) {
            if (scene.geoms[g].body < 0) {
                add_static_geom(scene.geoms[g]);
            }
        }
    }
    ~BulletScene() {
        for (auto& body : objects_) {
            world_.removeRigidBody(body.get());
        }
    }
    BulletScene(const BulletScene&) = delete;
    BulletScene& operator=(const BulletScene&) = delete;

    void step(double dt) { world_.stepSimulation(dt, 0); }

    // Largest overlap over the contact points of the last step (distance < 0 is overlap).
    double max_penetration() {
        double depth = 0;
        for (int m = 0; m < dispatcher_.getNumManifolds(); ++m) {
            const btPersistentManifold* manifold = dispatcher_.getManifoldByIndexInternal(m);
            for (int c = 0; c < manifold->getNumContacts(); ++c) {
                depth = std::max(depth, double(-manifold->getContactPoint(c).getDistance()));
            }
        }
        return depth;
    }

    // Bodies sit at their centre of mass on principal axes: L_Cm = R diag(I) R^T w.
    void read_state(bench_run* run) const {
        for (size_t b = 0; b < free_.size(); ++b) {
            const btRigidBody* body = free_[b];
            bench_body_state* s = &run->current[b];
            btQuaternion q = body->getOrientation();
            const btMatrix3x3& R = body->getWorldTransform().getBasis();
            btMatrix3x3 I_W = R.scaled(body->getLocalInertia()) * R.transpose();
            s->p_WCm = from_bt(body->getCenterOfMassPosition());
            s->q_WB = tch_quat{q.w(), q.x(), q.y(), q.z()};
            s->v_WCm = from_bt(body->getLinearVelocity());
            s->w_W = from_bt(body->getAngularVelocity());
            s->L_Cm_W = from_bt(I_W * body->getAngularVelocity());
            s->mass = 1 / body->getInvMass();
        }
    }

    void describe_settings(char* out, size_t size) {
        const btContactSolverInfo& info = world_.getSolverInfo();
        std::snprintf(out, size,
                      "Bullet %d (%s precision): btDiscreteDynamicsWorld with "
                      "btSequentialImpulseConstraintSolver %d iterations; erp2 %g; split "
                      "impulse %d; btDbvtBroadphase; default collision margins (convex 0.04 m); "
                      "friction = max of the two geoms; no restitution; deactivation disabled",
                      btGetVersion(), sizeof(btScalar) == 8 ? "double" : "single",
                      info.m_numIterations, double(info.m_erp2), info.m_splitImpulse);
    }

private:
    btCollisionShape* make_shape(const anchor_geom& g) {
        std::unique_ptr<btCollisionShape> shape;
        switch (g.type) {
        case ANCHOR_GEOM_SPHERE:
            shape = std::make_unique<btSphereShape>(g.size[0]);
            break;
        case ANCHOR_GEOM_CAPSULE:
            shape = std::make_unique<btCapsuleShapeZ>(g.size[0], 2 * g.size[1]);
            break;
        case ANCHOR_GEOM_CYLINDER:
            shape = std::make_unique<btCylinderShapeZ>(btVector3(g.size[0], g.size[0], g.size[1]));
            break;
        case ANCHOR_GEOM_BOX:
            shape = std::make_unique<btBoxShape>(btVector3(g.size[0], g.size[1], g.size[2]));
            break;
        case ANCHOR_GEOM_PLANE: {
            // touche's plane is the half-space below the geom's z = 0: n . x = n . p_WG.
            btTransform X = to_bt(g.X_CG);
            btVector3 n = X.getBasis().getColumn(2);
            shape = std::make_unique<btStaticPlaneShape>(n, n.dot(X.getOrigin()));
            break;
        }
        }
        shapes_.push_back(std::move(shape));
        return shapes_.back().get();
    }

    // One geom at the body frame: the shape itself; otherwise a compound of the geoms.
    btCollisionShape* make_body_shape(const anchor_scene& scene, int body, double* friction) {
        std::vector<int> geoms;
        for (int g = 0; g < scene.geom_count; ++g) {
            if (scene.geoms[g].body == body) {
                geoms.push_back(g);
                *friction = std::max(*friction, double(scene.geoms[g].friction));
            }
        }
        if (geoms.size() == 1 && is_identity(scene.geoms[geoms[0]].X_CG)) {
            return make_shape(scene.geoms[geoms[0]]);
        }
        auto compound = std::make_unique<btCompoundShape>();
        for (int g : geoms) {
            compound->addChildShape(to_bt(scene.geoms[g].X_CG), make_shape(scene.geoms[g]));
        }
        shapes_.push_back(std::move(compound));
        return shapes_.back().get();
    }

    btRigidBody* add_object(double mass, btCollisionShape* shape, const btVector3& inertia,
                            const btTransform& X_WC, double friction) {
        btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
        info.m_startWorldTransform = X_WC;
        info.m_friction = friction;
        objects_.push_back(std::make_unique<btRigidBody>(info));
        btRigidBody* body = objects_.back().get();
        body->setActivationState(DISABLE_DEACTIVATION);
        world_.addRigidBody(body);
        return body;
    }

    void add_free_body(const anchor_scene& scene, int b) {
        const anchor_body& body = scene.bodies[b];
        double friction = 0;
        btCollisionShape* shape = make_body_shape(scene, b, &friction);
        btVector3 inertia(body.I_C.m[0][0], body.I_C.m[1][1], body.I_C.m[2][2]);
        free_.push_back(add_object(body.mass, shape, inertia, to_bt(body.X_WC), friction));
    }

    void add_static_geom(const anchor_geom& g) {
        btTransform X = g.type == ANCHOR_GEOM_PLANE ? btTransform::getIdentity() : to_bt(g.X_CG);
        add_object(0, make_shape(g), btVector3(0, 0, 0), X, g.friction);
    }

    btDefaultCollisionConfiguration config_;
    btCollisionDispatcher dispatcher_;
    btDbvtBroadphase broadphase_;
    btSequentialImpulseConstraintSolver solver_;
    btDiscreteDynamicsWorld world_;
    std::vector<std::unique_ptr<btCollisionShape>> shapes_;
    std::vector<std::unique_ptr<btRigidBody>> objects_;
    std::vector<btRigidBody*> free_;
};

void simulate(BulletScene& bullet, bench_run* run) {
    for (int i = 0; i < run->steps; ++i) {
        long long t0 = bench_now_ns();
        bullet.step(run->dt);
        long long t1 = bench_now_ns();
        bench_record_step(run, i, t0, t1);
        bench_note_penetration(run, bullet.max_penetration());
        if (run->lz_file) {
            bullet.read_state(run);
            bench_record_momentum(run, (i + 1) * run->dt);
        }
    }
    bullet.read_state(run);
    if (!bench_state_finite(run)) {
        std::snprintf(run->status, sizeof run->status, "diverged (non-finite state)");
    }
}

}  // namespace

int main(int argc, char** argv) {
    bench_options options;
    if (!bench_parse_args(argc, argv, "bench_bullet", &options)) {
        return 2;
    }
    anchor_scene scene;
    char why[512];
    if (!anchor_scene_load(options.loader, options.scene_path, true, &scene, why, sizeof why)) {
        bench_report_failure(&options, "bullet", why);
        return 1;
    }
    bench_run run;
    if (!bench_run_begin(&run, &options, scene.timestep, scene.body_count)) {
        return 1;
    }
    {
        BulletScene bullet(scene);
        bullet.read_state(&run);
        bench_run_set_initial(&run, scene.gravity);
        bench_record_momentum(&run, 0);
        simulate(bullet, &run);
        char settings[512];
        bullet.describe_settings(settings, sizeof settings);
        bench_run_finish(&run, "bullet", settings);
    }
    anchor_scene_free(&scene);
    return 0;
}
